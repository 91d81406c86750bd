package query

import (
	"fmt"
	"strings"
	"testing"
)

// unified renders hunks as a unified diff's body, to compare with
// literals.
func unified(hs []Hunk) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", h.FromLine, h.FromCount, h.ToLine, h.ToCount)
		for _, l := range h.Lines {
			b.WriteString(l.Op + l.Text + "\n")
		}
	}
	return b.String()
}

func TestHunks(t *testing.T) {
	lines := func(n int, f string) []string {
		var out []string
		for i := 1; i <= n; i++ {
			out = append(out, fmt.Sprintf(f, i))
		}
		return out
	}
	ten := lines(10, "l%d")
	changed := append([]string(nil), ten...)
	changed[1], changed[9] = "two", "ten"
	for _, c := range []struct {
		name string
		a, b []string
		want string
	}{
		{"equal", ten, ten, ""},
		{"both empty", nil, nil, ""},
		{"from empty", nil, []string{"a", "b"}, "@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", []string{"a"}, nil, "@@ -1,1 +0,0 @@\n-a\n"},
		{"one change in the middle", ten, append(append(append([]string(nil), ten[:5]...), "new"), ten[5:]...),
			"@@ -3,6 +3,7 @@\n l3\n l4\n l5\n+new\n l6\n l7\n l8\n"},
		// Changes 7 unchanged lines apart (more than twice the context)
		// are two hunks.
		{"two hunks", ten, changed,
			"@@ -1,5 +1,5 @@\n l1\n-l2\n+two\n l3\n l4\n l5\n@@ -7,4 +7,4 @@\n l7\n l8\n l9\n-l10\n+ten\n"},
		// Changes 6 unchanged lines apart are one hunk.
		{"merged", lines(8, "l%d"), []string{"l1", "X", "l3", "l4", "l5", "l6", "l7", "l8", "Y"},
			"@@ -1,8 +1,9 @@\n l1\n-l2\n+X\n l3\n l4\n l5\n l6\n l7\n l8\n+Y\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := unified(Hunks(c.a, c.b))
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

func TestSplitLines(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\n\n": 2} {
		if got := len(splitLines(in)); got != want {
			t.Errorf("splitLines(%q): %d lines, want %d", in, got, want)
		}
	}
}
