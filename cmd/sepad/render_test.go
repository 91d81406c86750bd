package main

import (
	"testing"

	"github.com/sepad/sepad/query"
)

func fp(f float64) *float64 { return &f }

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
