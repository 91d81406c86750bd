package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sepad/sepad/query"
)

func fp(f float64) *float64 { return &f }

func TestSparkline(t *testing.T) {
	for _, c := range []struct {
		name   string
		scores []*float64
		vers   []int
		want   string
	}{
		{"empty", nil, nil, ""},
		{"absolute scale", []*float64{fp(0), fp(12.5), fp(50), fp(99.99), fp(100)}, []int{1, 1, 1, 1, 1}, "▁▂▅██"},
		{"unscored is a dot", []*float64{fp(70), nil, fp(70)}, []int{1, 1, 1}, "▆·▆"},
		{"bar where the version changes", []*float64{fp(90), fp(90), fp(30), fp(30)}, []int{1, 1, 2, 2}, "██|▃▃"},
		{"out of range is clamped", []*float64{fp(-5), fp(250)}, []int{3, 3}, "▁█"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sparkline(c.scores, c.vers); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestGate(t *testing.T) {
	row := func(grade string, agg float64) *query.GradeRow {
		return &query.GradeRow{Grade: grade, Aggregate: fp(agg), Current: true}
	}
	ungraded := &query.GradeRow{Aggregate: fp(10), Current: true}
	for _, c := range []struct {
		gate  string
		row   *query.GradeRow
		below bool
	}{
		{"B", row("C", 69.99), true},
		{"B", row("B", 70), false},
		{"b", row("A+", 95), false},
		{"A+", row("A", 89.99), true},
		{"F", row("F", 3), false},
		{"70", row("C", 69.99), true},
		{"70", row("B", 70), false},
		{"0", row("F", 0), false},
		{"100", row("A+", 99.9), true},
		{"B", ungraded, false},
		{"100", ungraded, false},
	} {
		g, err := parseGate(c.gate)
		if err != nil {
			t.Fatalf("%s: %v", c.gate, err)
		}
		if got := g.below(c.row); got != c.below {
			t.Errorf("gate %s, row %s %v: below = %v", c.gate, c.row.Grade, *c.row.Aggregate, got)
		}
	}
	for _, bad := range []string{"E", "101", "-1", "B-", "seventy"} {
		if _, err := parseGate(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if g, err := parseGate(""); g != nil || err != nil {
		t.Errorf("no gate: %v %v", g, err)
	}
	rows := []query.GradeRow{*row("D", 55), {Skill: "old", Grade: "F", Aggregate: fp(1)}, *ungraded}
	g, _ := parseGate("C")
	err := checkGate(g, &query.Grades{Grades: rows}, false)
	if ee, ok := err.(*exitError); !ok || ee.code != exitFail {
		t.Fatalf("gate failure: %v", err)
	}
	// A non-current version is not judged: here nothing graded is left.
	if ee, ok := checkGate(g, &query.Grades{Grades: rows[1:]}, false).(*exitError); !ok || ee.code != exitNothingToGate {
		t.Errorf("a non-current version was judged: %v", ee)
	}
}

func TestProjectLabels(t *testing.T) {
	got := projectLabels([]string{"/a/shop", "/b/blog", "/c/shop", "", "/b/blog"})
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
	printGrades(&b, &query.Grades{}, false)
	for _, want := range []string{"no skills yet", "next prompt", "idle_timeout", "sepad status"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("empty grades lack %q:\n%s", want, b.String())
		}
	}
}
