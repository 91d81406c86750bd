package hooks

import (
	"encoding/json"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// The hook's helpers must behave like the standard library functions they
// stand in for (text.go says why they exist).

var textSamples = []string{
	"", " ", "a", "abc", "  a b  ", "\t\n\v\f\r x \r\n", "\u00a0x\u3000", "\u2000\u200a\u200b",
	"\u0085a\u2028", "\xffa\xfe", "é ", "a/b/c", "~/x~y", `C:\Users\ana`, "'\"q\"'", "\"", "..", "a..b",
	"name: x", "---", "a\u205fb", "\u180e",
}

func TestTextHelpersMatchStrings(t *testing.T) {
	for _, s := range textSamples {
		checkText(t, s, "a")
		checkText(t, s, "/")
		checkText(t, s, "..")
	}
}

func checkText(t *testing.T, s, sub string) {
	t.Helper()
	if got, want := trimSpace(s), strings.TrimSpace(s); got != want {
		t.Errorf("trimSpace(%q) = %q, want %q", s, got, want)
	}
	if got, want := trimQuotes(s), strings.Trim(s, `"'`); got != want {
		t.Errorf("trimQuotes(%q) = %q, want %q", s, got, want)
	}
	if got, want := oneLine(s, len(s)+1), strings.Join(strings.Fields(s), " "); got != want {
		t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
	}
	if got, want := index(s, sub), strings.Index(s, sub); got != want {
		t.Errorf("index(%q, %q) = %d, want %d", s, sub, got, want)
	}
	if got, want := hasPrefix(s, sub), strings.HasPrefix(s, sub); got != want {
		t.Errorf("hasPrefix(%q, %q) = %v", s, sub, got)
	}
	if got, want := hasSuffix(s, sub), strings.HasSuffix(s, sub); got != want {
		t.Errorf("hasSuffix(%q, %q) = %v", s, sub, got)
	}
	if got, want := trimPrefix(s, sub), strings.TrimPrefix(s, sub); got != want {
		t.Errorf("trimPrefix(%q, %q) = %q", s, sub, got)
	}
	g1, g2 := cutPrefix(s, sub)
	w1, w2 := strings.CutPrefix(s, sub)
	if g1 != w1 || g2 != w2 {
		t.Errorf("cutPrefix(%q, %q)", s, sub)
	}
	b1, a1, f1 := cut(s, sub)
	b2, a2, f2 := strings.Cut(s, sub)
	if b1 != b2 || a1 != a2 || f1 != f2 {
		t.Errorf("cut(%q, %q)", s, sub)
	}
	if got, want := replaceAll(s, sub, "~0"), strings.ReplaceAll(s, sub, "~0"); got != want {
		t.Errorf("replaceAll(%q, %q) = %q, want %q", s, sub, got, want)
	}
	if got, want := indexByte(s, sub[0]), strings.IndexByte(s, sub[0]); got != want {
		t.Errorf("indexByte(%q, %q) = %d", s, sub[0], got)
	}
}

func FuzzTextHelpers(f *testing.F) {
	for _, s := range textSamples {
		f.Add(s, "a")
	}
	f.Fuzz(func(t *testing.T, s, sub string) {
		if sub == "" {
			return
		}
		checkText(t, s, sub)
	})
}

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

// toolInputNamesJSON is how the hook read tool_input with encoding/json.
func toolInputNamesJSON(in []byte) (skill, command, subagent string) {
	var v struct {
		Skill        any `json:"skill"`
		Command      any `json:"command"`
		SubagentType any `json:"subagent_type"`
	}
	if json.Unmarshal(in, &v) != nil {
		return "", "", ""
	}
	str := func(x any) string { s, _ := x.(string); return s }
	return str(v.Skill), str(v.Command), str(v.SubagentType)
}

var toolInputSamples = []string{
	`{"skill":"deploy"}`, `{"command":"/deploy"}`, `{"subagent_type":"reviewer"}`,
	`{"Skill":"a","SKILL":"b"}`, `{"skill":5}`, `{"skill":"a","skill":null}`, `null`, `[]`, `"x"`,
	`{"skill":"d\u00e9ploy\n"}`, "{\"s\u212aill\":\"k\"}", `{"x":{"skill":"nested"}}`,
}

func TestToolInputNamesMatchJSON(t *testing.T) {
	for _, s := range toolInputSamples {
		a1, b1, c1 := toolInputNames([]byte(s))
		a2, b2, c2 := toolInputNamesJSON([]byte(s))
		if a1 != a2 || b1 != b2 || c1 != c2 {
			t.Errorf("%s: (%q %q %q), json (%q %q %q)", s, a1, b1, c1, a2, b2, c2)
		}
	}
}

// FuzzToolInputNames runs tool_input through the walker first, as the
// hook does, then compares with encoding/json.
func FuzzToolInputNames(f *testing.F) {
	for _, s := range toolInputSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		w := walker{in: in, max: 1 << 20}
		w.ws()
		if w.i >= len(w.in) {
			return
		}
		w.value(0)
		if w.err != "" {
			return
		}
		w.ws()
		if w.i < len(w.in) || len(w.cuts) > 0 {
			return
		}
		a1, b1, c1 := toolInputNames(w.out)
		a2, b2, c2 := toolInputNamesJSON(w.out)
		if a1 != a2 || b1 != b2 || c1 != c2 {
			t.Fatalf("%q: (%q %q %q), json (%q %q %q)", w.out, a1, b1, c1, a2, b2, c2)
		}
	})
}

// TestParseArgsMatchesFlag: the hook's flag parsing gives what package
// flag gave for the same arguments.
func TestParseArgsMatchesFlag(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--home", "/h"},
		{"-home=/h", "--max-field", "100"},
		{"--max-field=0x10"},
		{"--max-field", "lots"},
		{"--nope"},
		{"--home", "/h", "--nope", "--max-field", "5"},
		{"--home"},
		{"--", "--home", "/x"},
		{"payload", "--home", "/x"},
		{"-h"},
		{"--help"},
	} {
		fs := flag.NewFlagSet("sepad hook", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var want Options
		fs.StringVar(&want.Home, "home", "", "")
		fs.IntVar(&want.MaxField, "max-field", DefaultMaxField, "")
		ferr := fs.Parse(args)
		got, help, note := parseArgs(args)
		if help != (ferr == flag.ErrHelp) {
			t.Errorf("%q: help %v, flag %v", args, help, ferr)
			continue
		}
		if help {
			continue
		}
		if got.Home != want.Home || got.maxField() != want.maxField() || (note != "") != (ferr != nil) {
			t.Errorf("%q: got %+v %q, flag %+v %v", args, got, note, want, ferr)
		}
		if ferr != nil && !strings.Contains(note, ferr.Error()) {
			t.Errorf("%q: note %q does not say %q", args, note, ferr)
		}
	}
}
