package mutation

import (
	"testing"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/record"
)

// TestNotices: a rollback, a would-roll-back and a rejection each hand
// the person one notice with the numbers and what to run; a decision to
// keep a version and a person's own rollback hand none.
func TestNotices(t *testing.T) {
	type got struct{ project, text string }
	var notes []got
	o := trustOptions()
	o.Notify = func(project, text string, at time.Time) error {
		notes = append(notes, got{project, text})
		return nil
	}
	r := newEngineRig(t, o)
	v1 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n")
	for i := 0; i < 6; i++ {
		r.run(v1, 85)
	}
	v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nJust try things.\n")
	for i := 0; i < 5; i++ {
		r.run(v2, 20)
	}
	if len(notes) != 1 || notes[0].project != r.proj {
		t.Fatalf("notices %+v", notes)
	}
	want := "sepad rolled back deploy v2 → v1: v2 scored 20.0 (F) over 5 runs; v1, the version v2 was made from, held 85.0 (A). Undo: sepad rollback deploy --to v2"
	if notes[0].text != want {
		t.Errorf("notice %q\nwant   %q", notes[0].text, want)
	}
	if recs := r.records(); recs[len(recs)-1].Notice != want {
		t.Errorf("the record does not carry its notice: %+v", recs[len(recs)-1])
	}
	if _, err := r.e.ManualRollback(r.skill, "v2"); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 {
		t.Errorf("a person's own rollback was noticed: %+v", notes[1:])
	}
}

// TestNoticeSaysWhichVersion (issue 36 item 5): a rollback's notice
// names the version it goes back to and why that one: a mutator's
// version goes back to the version it was made from; the best version
// is named with the reason its parent was not chosen; an ungraded target
// is not given a grade.
func TestNoticeSaysWhichVersion(t *testing.T) {
	agg := func(v float64, n int, graded bool) aggregate.Aggregate {
		return aggregate.Aggregate{Value: v, N: n, Graded: graded}
	}
	v1 := &record.Version{Hash: "h1", Seq: 1, Aggregate: agg(95, 10, true)}
	v2 := &record.Version{Hash: "h2", Seq: 2, Parent: "h1", Source: "edit", Aggregate: agg(80, 3, false)}
	v3 := &record.Version{Hash: "h3", Seq: 3, Parent: "h2", Source: "proposal", Aggregate: agg(40, 10, true)}
	for _, c := range []struct {
		name     string
		from, to *record.Version
		why      string
		want     string
	}{
		{"mutator to parent", v3, v2, "back to v2, its parent, the version the mutator made v3 from",
			"v3 scored 40.0 (F) over 10 runs; v2, the version the mutator made v3 from, held 80.0 (not graded yet)"},
		{"best, parent not fit", &record.Version{Hash: "h4", Seq: 4, Parent: "h3", Aggregate: agg(30, 10, true)}, v1,
			"back to v1, the best version (its parent v3 is not graded above F and at least 66.50), which held",
			"v4 scored 30.0 (F) over 10 runs; v1, the best version (its parent v3 is not graded above F and at least 66.50), held 95.0 (A+)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := noticeReason(&noteCtx{from: c.from, target: c.to, why: c.why}); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
