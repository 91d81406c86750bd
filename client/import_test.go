package client

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/sepad/sepad/importer"
)

// TestImportCreatesTheDatabase: with no daemon and no database, an import
// creates the database and adds the records; the same records again add
// nothing.
func TestImportCreatesTheDatabase(t *testing.T) {
	t.Setenv("SEPA_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	recs, _, err := importer.Load([]string{filepath.Join("..", "testdata", "import", "wrapped", "logs")})
	if err != nil || len(recs) == 0 {
		t.Fatalf("%d records: %v", len(recs), err)
	}
	home := t.TempDir()
	c := New(home, "")
	done, err := c.Import(recs)
	c.Close()
	if err != nil || done.Imported == 0 || done.Executions == 0 {
		t.Fatalf("first import: %+v %v", done, err)
	}
	if _, err := os.Stat(filepath.Join(home, "sepa.db")); err != nil {
		t.Fatal(err)
	}
	c = New(home, "")
	defer c.Close()
	again, err := c.Import(recs)
	if err != nil || again.Imported != 0 || again.AlreadyStored != done.Imported {
		t.Fatalf("second import: %+v %v", again, err)
	}
}

// TestImportFacets: a directory without facets is ErrNoFacets; a dry run
// over the imported executions reports the labels and writes none.
func TestImportFacets(t *testing.T) {
	t.Setenv("SEPA_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	home := t.TempDir()
	if _, err := ImportFacets(home, "", t.TempDir(), true); !errors.Is(err, importer.ErrNoFacets) {
		t.Fatalf("no facets: %v", err)
	}
	recs, _, err := importer.Load([]string{filepath.Join("..", "testdata", "sessions", "hook_raw.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	c := New(home, "")
	_, err = c.Import(recs)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.json"), []byte(`{"session_id":"5f0c1e2a-1111-4c3b-9d7e-aaaaaaaaaaaa","outcome":"fully_achieved"}`), 0o600)
	for range 2 {
		rep, err := ImportFacets(home, "", dir, true)
		if err != nil || len(rep.Labelled) == 0 || !rep.DryRun {
			t.Fatalf("dry run: %+v %v", rep, err)
		}
	}
}
