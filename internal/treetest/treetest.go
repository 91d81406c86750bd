// Package treetest writes literal file trees for the tests of several
// packages (the hook's and the prompt layout's resolution tests).
package treetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write creates the files of a literal tree under base: each key is a
// slash path; a value "DIR" makes a directory, "->TARGET" a symbolic link
// to base/TARGET, anything else a file with that content.
func Write(t testing.TB, base string, tree map[string]string) {
	t.Helper()
	for rel, content := range tree {
		p := filepath.Join(base, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case content == "DIR":
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(content, "->"):
			err = os.Symlink(filepath.Join(base, filepath.FromSlash(content[2:])), p)
		default:
			err = os.WriteFile(p, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
