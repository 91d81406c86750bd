package activation

import (
	"testing"
	"unicode/utf8"
)

func TestCountsFromMarks(t *testing.T) {
	var c Counts
	for _, m := range []struct {
		by     string
		missed bool
	}{{"claude", false}, {"user", false}, {"user", true}, {"claude", false}, {"", false}, {"other", false}, {"user", true}, {"claude", true}} {
		c.Add(m.by, m.missed)
	}
	if c != (Counts{Claude: 3, User: 3, Missed: 2}) {
		t.Fatalf("counts %+v", c)
	}
	if r, ok := c.Rate(); !ok || c.Chances() != 5 || r != 0.6 {
		t.Errorf("rate %v %v over %d chances, want 0.6 over 5", r, ok, c.Chances())
	}
	if _, ok := (Counts{User: 4}).Rate(); ok {
		t.Error("typed at each session's start only: no chance seen, no rate")
	}
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		c    Counts
		want string
	}{
		{Counts{}, "no invocation counted yet"},
		{Counts{Claude: 4, User: 3, Missed: 2}, "the model used it 4 times on its own; the person typed it 3 times, 2 of them right after a turn without it (missed): the model picked it 4 of 6 times (67%)"},
		{Counts{Claude: 1, User: 1, Missed: 1}, "the model used it once on its own; the person typed it once, right after a turn without it (missed): the model picked it 1 of 2 times (50%)"},
		{Counts{User: 2, Missed: 2}, "the model never used it on its own; the person typed it twice, each right after a turn without it (missed): the model picked it 0 of 2 times (0%)"},
		{Counts{User: 2}, "the model never used it on its own; the person typed it twice, never right after a turn without it"},
		{Counts{Claude: 2}, "the model used it twice on its own; the person never typed it: the model picked it 2 of 2 times (100%)"},
	} {
		if got := tc.c.Words(); got != tc.want {
			t.Errorf("%+v:\n got %q\nwant %q", tc.c, got, tc.want)
		}
	}
}

func TestDescription(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", "---\nname: deploy\ndescription: Deploy the app.\n---\nbody\n", "Deploy the app.", true},
		{"folded", "---\ndescription: >\n  Deploy the app.\n  Use when asked.\n---\n", "Deploy the app. Use when asked.", true},
		{"quoted, spaces", "---\ndescription: \"  Deploy.  \"\n---\n", "Deploy.", true},
		{"crlf", "---\r\ndescription: Deploy.\r\n---\r\nbody", "Deploy.", true},
		{"a number", "---\ndescription: 42\n---\n", "42", true},
		{"none", "---\nname: deploy\n---\nbody\n", "", false},
		{"empty", "---\ndescription: \"\"\n---\n", "", false},
		{"no front matter", "# Deploy\n\ndescription: not this\n", "", false},
		{"not YAML", "---\ndescription: [unclosed\n---\n", "", false},
		{"unclosed", "---\ndescription: Deploy.\n", "", false},
	} {
		got, ok := Description([]byte(tc.in))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	a := DescriptionHash([]byte("---\ndescription: Deploy the app.\n---\nDo it.\n"))
	b := DescriptionHash([]byte("---\nname: x\ndescription: Deploy the app.\n---\nDo it better.\n"))
	c := DescriptionHash([]byte("---\ndescription: Deploy the app. Use when asked to ship.\n---\nDo it.\n"))
	if a != b || a == c || len(a) != 12 {
		t.Errorf("hashes %q %q %q: the body or another key changed the description's hash, or the description did not", a, b, c)
	}
	if h := DescriptionHash([]byte("body only")); h != NoDescription {
		t.Errorf("no description: %q", h)
	}
}

func TestGroups(t *testing.T) {
	vs := []Version{
		{Seq: 1, Hash: "a", Description: "d1", Counts: Counts{User: 2, Missed: 1}},
		{Seq: 2, Hash: "b", Description: "d1", Counts: Counts{Claude: 1}},
		{Seq: 3, Hash: "c", Description: "", Counts: Counts{Claude: 1}}, // content not known
		{Seq: 4, Hash: "d", Description: "d2", Counts: Counts{Claude: 3, User: 1, Missed: 1}},
		{Seq: 5, Hash: "e", Description: "d1"}, // back to the first text: a new group
	}
	g := Groups(vs)
	if len(g) != 3 {
		t.Fatalf("%d groups: %+v", len(g), g)
	}
	if g[0].Description != "d1" || g[0].From != 1 || g[0].To != 3 || g[0].Counts != (Counts{Claude: 2, User: 2, Missed: 1}) || len(g[0].Hashes) != 3 {
		t.Errorf("first: %+v", g[0])
	}
	if g[1].Description != "d2" || g[1].From != 4 || g[1].To != 4 || g[1].Counts != (Counts{Claude: 3, User: 1, Missed: 1}) {
		t.Errorf("second: %+v", g[1])
	}
	if g[2].From != 5 || !g[2].Zero() {
		t.Errorf("third: %+v", g[2])
	}
	if Groups(nil) != nil {
		t.Error("no versions, no groups")
	}
}

// FuzzDescription: any bytes give an answer, never a panic; a description
// found is trimmed text, and the hash follows it.
func FuzzDescription(f *testing.F) {
	for _, s := range []string{"---\ndescription: Deploy.\n---\n", "---\ndescription: >\n  a\n  b\n---\n", "---\n", "---\n---\n", "\ufeff---\ndescription: x\n...\n", "---\ndescription: &a [*a]\n---\n", "---\n: :\n---\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, ok := Description(b)
		h := DescriptionHash(b)
		if !ok {
			if d != "" || h != NoDescription {
				t.Fatalf("no description but %q, hash %q", d, h)
			}
			return
		}
		if d == "" || h == NoDescription || len(h) != 12 {
			t.Fatalf("description %q, hash %q", d, h)
		}
		if utf8.ValidString(d) && (d[0] == ' ' || d[len(d)-1] == ' ') {
			t.Fatalf("untrimmed %q", d)
		}
	})
}
