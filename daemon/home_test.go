package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPrepareHome(t *testing.T) {
	base := t.TempDir()
	mode := func(p string) os.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	mk := func(name string, m os.FileMode, files ...string) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(p, f), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Missing: created private.
	fresh := filepath.Join(base, "fresh", "state")
	if err := prepareHome(fresh); err != nil || mode(fresh) != 0o700 {
		t.Fatalf("new home: %v %v", mode(fresh), err)
	}
	// Someone else's directory (no sepa.db, no spool) keeps its mode.
	other := mk("projects", 0o750)
	if err := prepareHome(other); err != nil || mode(other) != 0o750 {
		t.Fatalf("foreign directory: mode %v after, err %v", mode(other), err)
	}
	// sepad's own directory is tightened to 0700.
	ours := mk("ours", 0o750, "sepa.db")
	if err := prepareHome(ours); err != nil || mode(ours) != 0o700 {
		t.Fatalf("sepad's directory: mode %v after, err %v", mode(ours), err)
	}
	// A directory others can write is refused, named, and left as it is,
	// whether or not it holds sepad's files.
	for _, d := range []struct {
		name  string
		m     os.FileMode
		files []string
	}{{"shared", 0o777, nil}, {"group", 0o770, []string{"events.jsonl"}}, {"tmp", 0o1777, nil}} {
		p := mk(d.name, d.m, d.files...)
		if d.m&os.ModeSticky != 0 {
			os.Chmod(p, 0o777|os.ModeSticky)
		}
		before := mode(p)
		err := prepareHome(p)
		if !errors.Is(err, errUnsafeHome) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s (%v): %v", d.name, d.m, err)
		}
		if mode(p) != before {
			t.Errorf("%s: mode changed from %v to %v", d.name, before, mode(p))
		}
	}
}
