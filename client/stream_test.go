package client

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sepad/sepad/store"
)

// TestStreamFile: an export into a file is renamed into place when
// complete; a failed one leaves neither the file nor its temporary.
func TestStreamFile(t *testing.T) {
	t.Setenv("SEPA_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out := t.TempDir()
	file := filepath.Join(out, "runs.csv")

	empty := t.TempDir()
	c := New(empty, "")
	if _, err := c.StreamFile("/v1/export?format=csv", file); err == nil {
		t.Fatal("an export with no database succeeded")
	}
	c.Close()
	if ents, _ := os.ReadDir(out); len(ents) != 0 {
		t.Fatalf("a failed export left %v", ents)
	}

	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	c = New(home, "")
	defer c.Close()
	stats, err := c.StreamFile("/v1/export?format=csv", file)
	if err != nil || stats == nil || stats.Written != 0 {
		t.Fatalf("export: %+v %v", stats, err)
	}
	b, err := os.ReadFile(file)
	if err != nil || len(b) == 0 {
		t.Fatalf("the file: %q %v", b, err)
	}
	if ents, _ := os.ReadDir(out); len(ents) != 1 {
		t.Fatalf("beside the file: %v", ents)
	}
}
