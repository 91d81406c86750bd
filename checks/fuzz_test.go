package checks

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzFirstNumber: any text gives no number, or a finite number that
// strconv reads back from a substring of the text. Seeds:
// testdata/fuzz/FuzzFirstNumber/.
func FuzzFirstNumber(f *testing.F) {
	for _, s := range []string{"42", "-3.5e2 x", "v1.2.3", ".5", "1e", "+-1", "1e999", "abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := FirstNumber(s)
		if !ok {
			if n != 0 {
				t.Fatalf("FirstNumber(%q) = %v without a number", s, n)
			}
			return
		}
		if math.IsNaN(n) || math.IsInf(n, 0) {
			t.Fatalf("FirstNumber(%q) = %v", s, n)
		}
		if !strings.ContainsAny(s, "0123456789") {
			t.Fatalf("FirstNumber(%q) = %v from no digit", s, n)
		}
		if _, err := strconv.ParseFloat(strconv.FormatFloat(n, 'g', -1, 64), 64); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzExtractJSON: any output either holds no JSON, or the value found is
// similar to itself (1) and every scorer on it stays in [0, 1]. Seeds:
// testdata/fuzz/FuzzExtractJSON/.
func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n[1,2]\n```", "~~~\n{}\n~~~", "```\n{\"a\":", "text", "````\n```\n{}\n````"} {
		f.Add(s)
	}
	diff := must(f, Def{Type: JSONDiff, Expected: map[string]any{"id": 1, "tags": []any{"a"}}})
	valid := must(f, Def{Type: JSONValidity})
	f.Fuzz(func(t *testing.T, s string) {
		v, where, ok := ExtractJSON(s)
		if ok != (where != "") {
			t.Fatalf("ExtractJSON(%q): ok %v where %q", s, ok, where)
		}
		if ok {
			if sim := JSONSimilarity(v, v); sim != 1 {
				t.Fatalf("a value is %v similar to itself: %q", sim, s)
			}
		}
		for _, c := range []*Check{diff, valid} {
			o := c.Run(Input{Output: s, HasOutput: true})
			if !(o.Score >= 0 && o.Score <= 1) || o.Passed && o.Score == 0 && c.Type == JSONValidity {
				t.Fatalf("%s on %q: %+v", c.Type, s, o)
			}
			if (c.Type == JSONValidity) != (o.Passed == ok) && c.Type == JSONValidity {
				t.Fatalf("json_validity %v but ExtractJSON %v on %q", o.Passed, ok, s)
			}
		}
	})
}

// FuzzSimilarity: the edit distance is a metric bounded by the longer
// length, and the similarity lies in [0, 1], 1 exactly for equal texts.
// Seeds: testdata/fuzz/FuzzSimilarity/.
func FuzzSimilarity(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add("", "abc")
	f.Add("héllo", "hello")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 512 || len(b) > 512 {
			return
		}
		d := Distance(a, b)
		if d != Distance(b, a) {
			t.Fatalf("not symmetric: %q %q", a, b)
		}
		la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
		if d < max(la, lb)-min(la, lb) || d > max(la, lb) {
			t.Fatalf("Distance(%q, %q) = %d out of [%d, %d]", a, b, d, max(la, lb)-min(la, lb), max(la, lb))
		}
		s := Similarity(a, b)
		if s < 0 || s > 1 || (s == 1) != (d == 0) {
			t.Fatalf("Similarity(%q, %q) = %v, distance %d", a, b, s, d)
		}
	})
}

// FuzzListContains: any output scores the fraction of items found, and an
// item the output holds verbatim is always found. Seeds:
// testdata/fuzz/FuzzListContains/.
func FuzzListContains(f *testing.F) {
	f.Add("This is urgnet: the dedline is tomorow.")
	f.Add("URGENT deadline")
	f.Add("")
	c := must(f, Def{Type: ListContains, Expected: []any{"urgent", "deadline", "next steps"}})
	f.Fuzz(func(t *testing.T, s string) {
		o := c.Run(Input{Output: s, HasOutput: true})
		if o.Score < 0 || o.Score > 1 || o.Passed != (o.Score >= DefaultListContainsThreshold) {
			t.Fatalf("%q: %+v", s, o)
		}
		o2 := c.Run(Input{Output: s + " urgent deadline next steps", HasOutput: true})
		if o2.Score != 1 {
			t.Fatalf("verbatim items not found in %q: %+v", s, o2)
		}
	})
}
