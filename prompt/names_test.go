package prompt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestNameOfFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"skills/deploy/SKILL.md": "deploy",
		"agents/reviewer.md":     "reviewer",
		"commands/ship.txt":      "ship.txt",
	}
	for rel, want := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if got, ok := NameOfFile(p); !ok || got != want {
			t.Errorf("%s: %q %v, want %q", rel, got, ok, want)
		}
	}
	for _, p := range []string{
		"skills/deploy/SKILL.md",                // relative
		filepath.Join(dir, "skills", "deploy"),  // a directory
		filepath.Join(dir, "agents", "none.md"), // missing
	} {
		if got, ok := NameOfFile(p); ok {
			t.Errorf("%s: %q, want none", p, got)
		}
	}
}
