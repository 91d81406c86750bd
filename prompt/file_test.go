package prompt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/treetest"
)

// TestSubdirs holds the hook's directory listing (on Linux, parsed from
// getdents64 with the entries' types) to os.ReadDir.
func TestSubdirs(t *testing.T) {
	base := t.TempDir()
	tree := map[string]string{"a/x": "f", "b": "DIR", ".claude/skills": "DIR", "file.txt": "f", "link": "->b", "node_modules/p": "f"}
	for i := 0; i < 300; i++ { // more than one 8 KiB getdents buffer
		tree[filepath.Join("many", strings.Repeat("d", 40)+string(rune('a'+i%26))+strings.Repeat("x", i/26))] = "DIR"
	}
	treetest.Write(t, base, tree)
	for _, dir := range []string{base, filepath.Join(base, "many"), filepath.Join(base, "b")} {
		got, claude, err := subdirs(dir)
		if err != nil {
			t.Fatal(err)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		wantClaude := false
		for _, e := range ents {
			if e.IsDir() {
				want = append(want, e.Name())
			}
			wantClaude = wantClaude || e.Name() == ".claude"
		}
		slices.Sort(want)
		if !slices.Equal(got, want) || claude != wantClaude {
			t.Errorf("%s: subdirs %v %v, want %v %v", dir, got, claude, want, wantClaude)
		}
	}
	if len(must(subdirs(filepath.Join(base, "many")))) != 300 {
		t.Error("not every entry of a large directory")
	}
	if _, _, err := subdirs(filepath.Join(base, "file.txt")); err == nil {
		t.Error("subdirs of a file: no error")
	}
	if _, _, err := subdirs(filepath.Join(base, "missing")); err == nil {
		t.Error("subdirs of a missing dir: no error")
	}
}

func must(names []string, _ bool, err error) []string {
	if err != nil {
		panic(err)
	}
	return names
}
