package evals

import (
	"strings"
	"testing"
)

func TestPowersOf(t *testing.T) {
	p := PowersOf([]byte("---\nname: x\nallowed-tools: Bash(git:*)\nhooks:\n  Stop: []\ndescription: run !`date`\n---\nBody !`git status` and\n```!\nmake\n```\n"))
	if p.Keys["allowed-tools"] != "Bash(git:*)" || p.Keys["hooks"] == "" || len(p.Keys) != 2 {
		t.Errorf("keys %q", p.Keys)
	}
	if strings.Join(p.Shell, "|") != "make|date|git status" {
		t.Errorf("shell %q", p.Shell)
	}
	if w := p.RunsCode(); !strings.Contains(w, "front matter hooks") || !strings.Contains(w, "3 shell line(s)") {
		t.Errorf("runs code: %q", w)
	}
	// Not YAML (an unquoted colon): read line by line.
	if w := PowersOf([]byte("---\nname: x\ndescription: Use when: deploying\n---\nx\n")).RunsCode(); w != "" {
		t.Errorf("a front matter that is not YAML, without hooks: %q", w)
	}
	if w := PowersOf([]byte("---\ndescription: Use when: deploying\nhooks:\n  Stop: []\n---\nx\n")).RunsCode(); w != "front matter hooks" {
		t.Errorf("a front matter that is not YAML, with hooks: %q", w)
	}
	if w := PowersOf([]byte("# Plain\n\nNo powers, an `inline` span and a ! mark.\n")).RunsCode(); w != "" {
		t.Errorf("plain text: %q", w)
	}
}

// FuzzPowersOf: any text reads without a panic, and claims nothing over
// itself.
func FuzzPowersOf(f *testing.F) {
	for _, s := range []string{"", "---\nhooks: {}\n---\n", "---\nallowed-tools: [a, b]\n---\n!`x`", "```!\ny\n```", "---\n: :\n---\n", "\ufeff---\nmodel: opus\n...\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p := PowersOf([]byte(s))
		if a := p.Added(p); len(a) != 0 {
			t.Fatalf("%q adds %q over itself", s, a)
		}
		_ = p.RunsCode()
	})
}
