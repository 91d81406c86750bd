package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

func TestProjectLabels(t *testing.T) {
	got := ProjectLabels([]string{"/a/shop", "/b/blog", "/c/shop", "", "/b/blog"})
	want := map[string]string{"/a/shop": "/a/shop", "/c/shop": "/c/shop", "/b/blog": "blog", "": "-"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q: %q, want %q", k, got[k], v)
		}
	}
}

// TestGradesEmptyExplainsOpenExecutions: with nothing scored yet, the table
// says why (a turn's last execution waits for the next prompt) and where
// to look, instead of leaving a new user to think the hook is broken.
func TestGradesEmptyExplainsOpenExecutions(t *testing.T) {
	var b bytes.Buffer
	Grades(&b, &query.Grades{}, false)
	for _, want := range []string{"no skills yet", "next prompt", "idle_timeout", "sepad status"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("empty grades lack %q:\n%s", want, b.String())
		}
	}
}

// TestFmtScoreChange: the strconv forms equal the fmt verbs they replace.
func TestFmtScoreChange(t *testing.T) {
	for _, v := range []float64{0, -0.001, 0.004, 0.005, 12.345, -12.345, 99.999, 100, math.Inf(1), math.Inf(-1), math.NaN()} {
		if got, want := Score(&v), fmt.Sprintf("%.2f", v); got != want {
			t.Errorf("Score(%v) = %q, want %q", v, got, want)
		}
		if got, want := Change(&v), fmt.Sprintf("%+.2f", v); got != want {
			t.Errorf("Change(%v) = %q, want %q", v, got, want)
		}
	}
	if Version(3, "0123456789ab") != "v3 01234567" || Version(0, "unknown") != "unknown" {
		t.Error("Version")
	}
}

// TestTrimTrailing: no line of a table ends in spaces, whatever the
// writes' boundaries; spaces inside a line stay.
func TestTrimTrailing(t *testing.T) {
	var b bytes.Buffer
	w := TrimTrailing(&b)
	for _, s := range []string{"a  b", "   ", "\n", "c ", " d  ", "", "\n  \n", "e"} {
		io.WriteString(w, s)
	}
	if got, want := b.String(), "a  b\nc  d\n\ne"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var tb bytes.Buffer
	tw := tabwriter.NewWriter(TrimTrailing(&tb), 0, 0, 2, ' ', 0)
	io.WriteString(tw, "A\tB\tC\nlong value\t\t\n")
	tw.Flush()
	for _, l := range strings.Split(tb.String(), "\n") {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("a table line ends in spaces: %q", l)
		}
	}
}

// TestCost (issue 36 item 4): one mark for a price sepad does not know,
// "$0" only for a cost of zero, "≥" when some runs were priced.
func TestCost(t *testing.T) {
	for _, c := range []struct {
		usd        float64
		unknown, n int
		want       string
	}{
		{0, 0, 3, "$0"},
		{0, 3, 3, PriceUnknown},
		{0, 1, 3, PriceUnknown},
		{0.0042, 1, 3, "≥ $0.0042"},
		{0.0042, 0, 3, "$0.0042"},
		{1.5, 0, 3, "$1.50"},
	} {
		if got := Cost(c.usd, c.unknown, c.n); got != c.want {
			t.Errorf("Cost(%v, %d, %d) = %q, want %q", c.usd, c.unknown, c.n, got, c.want)
		}
	}
	if got := Tokens(&query.Tokens{N: 2, Mean: 1200, CostUnknown: 2}, nil); got != "1.2k tok "+PriceUnknown {
		t.Errorf("Tokens = %q", got)
	}
	// The change is the tokens', so it follows them, not the price
	// (a walk read "564 tok price unknown +0%").
	ch := 0.18
	if got := Tokens(&query.Tokens{N: 2, Mean: 1200, CostUnknown: 2}, &ch); got != "1.2k tok +18% "+PriceUnknown {
		t.Errorf("Tokens with a change = %q", got)
	}
}

// TestGradeTableRow: the rows DecodeGrades decodes for its table are a
// part of query.GradeRow: every field has the same JSON name and type,
// and the table printed from them equals the table printed from whole
// rows in which every field is set (so a field the table starts to show
// and tableRow lacks fails here).
func TestGradeTableRow(t *testing.T) {
	full := reflect.TypeFor[query.GradeRow]()
	slim := reflect.TypeFor[tableRow]()
	for i := 0; i < slim.NumField(); i++ {
		f := slim.Field(i)
		g, ok := full.FieldByName(f.Name)
		if !ok || g.Type != f.Type || g.Tag.Get("json") != f.Tag.Get("json") {
			t.Errorf("tableRow.%s (%s %q) is not query.GradeRow's", f.Name, f.Type, f.Tag.Get("json"))
		}
	}
	doc := query.Grades{RubricVersion: "1.2.0", MinSamples: 3, Grades: []query.GradeRow{filled[query.GradeRow](t, 1), filled[query.GradeRow](t, 2),
		{Skill: "review", Project: "/q/review", Version: 1, Hash: "unknown", Status: "ungraded"}}}
	doc.Grades[1].Project = "/elsewhere/shop"
	body, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeGrades(body)
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		var a, b bytes.Buffer
		Grades(&a, &doc, all)
		Grades(&b, got, all)
		if a.String() != b.String() {
			t.Errorf("all=%v: the table from the table rows:\n%s\nfrom whole rows:\n%s", all, b.String(), a.String())
		}
	}
	if _, err := DecodeGrades([]byte(`{"grades":[{"skill":1}]}`)); err == nil || !strings.Contains(err.Error(), "malformed answer") {
		t.Errorf("a malformed answer: %v", err)
	}
}
