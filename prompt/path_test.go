package prompt

import (
	"path/filepath"
	"strings"
	"testing"
)

// withinRel is the definition within had with path/filepath.
func withinRel(root, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	if err != nil || filepath.IsAbs(rel) || rel == "." {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func TestWithinMatchesRel(t *testing.T) {
	for _, c := range [][2]string{
		{"/a/.claude/skills", "/a/.claude/skills/x/SKILL.md"},
		{"/a/.claude/skills", "/a/.claude/skills"},
		{"/a/.claude/skills", "/a/.claude/skills/../../etc/passwd"},
		{"/a/.claude/skills", "/a/.claude/skillsx/y"},
		{"/a/.claude/skills/", "/a/.claude/skills//x"},
		{"/", "/etc"},
		{"/", "/"},
		{"rel", "rel/x"},
		{"home/.claude/skills", "home/.claude/skills/a/SKILL.md"},
		{".", "x"},
		{".", "../x"},
		{"a/..", "b"},
		{"..", "../x"},
		{"../a", "../b"},
		{"/a", "a/x"},
		{"/a/b/..", "/a/x"},
		{"/a", "/a/..x"},
	} {
		if got, want := within(c[0], c[1]), withinRel(c[0], c[1]); got != want {
			t.Errorf("within(%q, %q) = %v, want %v", c[0], c[1], got, want)
		}
	}
}

func FuzzWithin(f *testing.F) {
	f.Add("/a/.claude/skills", "/a/.claude/skills/x/SKILL.md")
	f.Add("/a/b", "/a/b/../c")
	f.Fuzz(func(t *testing.T, root, p string) {
		if got, want := within(root, p), withinRel(root, p); got != want {
			t.Fatalf("within(%q, %q) = %v, want %v", root, p, got, want)
		}
	})
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		root, p string
		want    bool
	}{
		{"/a/.claude/skills", "/a/.claude/skills/x/SKILL.md", true},
		{"/a/.claude/skills", "/a/.claude/skills/../secret/SKILL.md", false},
		{"/a/.claude/skills", "/a/.claude/skills", false},
		{"/a/.claude/skills", "/a/.claude/skillsx/SKILL.md", false},
		{"/a/.claude/skills", "/a/.claude/skills/..x/SKILL.md", true},
	} {
		if got := within(tc.root, tc.p); got != tc.want {
			t.Errorf("within(%q, %q) = %v", tc.root, tc.p, got)
		}
	}
}
