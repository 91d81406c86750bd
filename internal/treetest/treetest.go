// Package treetest writes literal file trees for the tests of several
// packages (the hook's and the prompt layout's resolution tests, the
// skills that mutation and promptfile write over).
package treetest

import (
	"io/fs"
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

// Skill makes root/.claude/skills/<name>/SKILL.md with content and mode
// (set past the umask) and returns its path.
func Skill(t testing.TB, root, name, content string, mode fs.FileMode) string {
	t.Helper()
	p := filepath.Join(root, ".claude", "skills", name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}
