package hooks

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestOneLineCuts(t *testing.T) {
	if got := oneLine("  abc   def  ", 5); got != "abc d…" {
		t.Fatalf("oneLine = %q", got)
	}
}

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

// TestParseArgs: a bad flag keeps the flags before it and says what was
// ignored, so the event is still recorded where the user asked.
func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		home    string
		max     int
		help    bool
		noteHas string
	}{
		{nil, "", DefaultMaxField, false, ""},
		{[]string{"--home", "/h", "--max-field", "300"}, "/h", 300, false, ""},
		{[]string{"--home", "/h", "--nope", "--max-field", "5"}, "/h", DefaultMaxField, false, "not defined: -nope"},
		{[]string{"--max-field", "lots"}, "", DefaultMaxField, false, "invalid value"},
		{[]string{"--home"}, "", DefaultMaxField, false, "needs an argument"},
		{[]string{"--help"}, "", DefaultMaxField, true, ""},
	} {
		o, help, note := parseArgs(tc.args)
		if o.Home != tc.home || o.maxField() != tc.max || help != tc.help || !strings.Contains(note, tc.noteHas) || (tc.noteHas == "") != (note == "") {
			t.Errorf("%q: home %q max %d help %v note %q", tc.args, o.Home, o.maxField(), help, note)
		}
	}
}
