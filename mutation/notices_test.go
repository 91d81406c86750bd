package mutation

import (
	"testing"
	"time"
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
