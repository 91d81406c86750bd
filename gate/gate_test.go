package gate

import (
	"errors"
	"testing"

	"github.com/sepad/sepad/query"
)

func TestJudge(t *testing.T) {
	b := &Gate{grade: "B", text: "B"}
	rows := []row{
		{skill: "deploy", version: "v2", graded: true, value: 81, grade: "B"},
		{skill: "_session", version: "v1", graded: true, value: 40, grade: "F"},
		{skill: "triage", version: "v1"}, // ungraded
	}
	for _, c := range []struct {
		name    string
		rows    []row
		named   bool
		fail    bool
		nothing bool
		msg     string
	}{
		{"graded at the threshold pass; _session is left out", rows, false, false, false, ""},
		{"_session counts when named", rows[1:2], true, true, false, "1 skill below B:\n  CLAUDE.md (-) v1: 40.00 F"},
		{"nothing matches", nil, false, true, true, "nothing to gate: no skill matches (CLAUDE.md, the instruction files of a session, counts only when named)"},
		{"only _session, not named", rows[1:2], false, true, true, "nothing to gate: no skill matches (CLAUDE.md, the instruction files of a session, counts only when named)"},
		{"nothing graded", rows[2:], false, true, true, "nothing to gate: 1 skill selected, none graded yet (a version is graded from 3 scored executions)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := b.judge(c.rows, c.named, 3)
			var f *Failed
			if got := errors.As(err, &f); got != c.fail || (got && (f.Nothing != c.nothing || f.Error() != c.msg)) {
				t.Errorf("%#v; want failed %v, nothing %v, %q", err, c.fail, c.nothing, c.msg)
			}
		})
	}
}

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
		g, err := Parse(c.gate)
		if err != nil {
			t.Fatalf("%s: %v", c.gate, err)
		}
		if got := g.Below(c.row); got != c.below {
			t.Errorf("gate %s, row %s %v: below = %v", c.gate, c.row.Grade, *c.row.Aggregate, got)
		}
	}
	for _, bad := range []string{"E", "101", "-1", "B-", "seventy"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if g, err := Parse(""); g != nil || err != nil {
		t.Errorf("no gate: %v %v", g, err)
	}
	rows := []query.GradeRow{*row("D", 55), {Skill: "old", Grade: "F", Aggregate: fp(1)}, *ungraded}
	g, _ := Parse("C")
	var f *Failed
	if err := g.Grades(&query.Grades{Grades: rows}, false); !errors.As(err, &f) || f.Nothing {
		t.Fatalf("gate failure: %v", err)
	}
	// A non-current version is not judged: here nothing graded is left.
	if err := g.Grades(&query.Grades{Grades: rows[1:]}, false); !errors.As(err, &f) || !f.Nothing {
		t.Errorf("a non-current version was judged: %v", err)
	}
}
