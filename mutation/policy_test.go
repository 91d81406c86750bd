package mutation

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
)

// TestPersonsEditIsNotRewritten (issue 15 point 2): a version a person
// wrote is not rolled back by default: "would roll back" is recorded and
// the file is left alone; a proposal (a mutator's version) still rolls
// back automatically; rollback_edits: auto, per skill, rolls the edit back.
func TestPersonsEditIsNotRewritten(t *testing.T) {
	o := trustOptions()
	o.RollbackEdits = "" // the default: ask
	r := newEngineRig(t, o)
	v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	for i := 0; i < 6; i++ {
		r.run(v1, 85)
	}
	edit := "---\nname: deploy\n---\n# Deploy\n\nJust try things.\n"
	v2 := r.write(edit)
	for i := 0; i < 5; i++ {
		r.run(v2, 20)
	}
	recs := r.records()
	if len(recs) != 1 || recs[0].Kind != KindWouldRollBack || recs[0].Applied || recs[0].From != v2 || recs[0].To != v1 {
		t.Fatalf("a person's F-graded edit: %+v", recs)
	}
	if !strings.Contains(recs[0].Words, "sepad rollback deploy") || !strings.Contains(recs[0].Words, "(F) over 5 runs") {
		t.Errorf("words %q", recs[0].Words)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != edit {
		t.Fatalf("the person's edit was rewritten: %q", b)
	}
	st, _ := Statuses(r.db, r.skill)
	if st[v2] != StatusWouldRollBack {
		t.Errorf("status %q, want would roll back", st[v2])
	}
	// The person asks: sepad rollback does it.
	rec, err := r.e.ManualRollback(r.skill, "")
	if err != nil || !rec.Applied {
		t.Fatalf("manual rollback: %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v1body {
		t.Fatalf("manual rollback did not restore v1: %q", b)
	}

	// A mutator's proposal rolls back automatically.
	r.e.mu.Lock()
	r.e.states[r.skill].Cooldown = 0
	r.e.mu.Unlock()
	prop := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, deploy, then watch.\n"
	po := proposal.DefaultOptions()
	po.MinExecutions = 0
	if _, err := r.e.Propose(r.skill, []byte(prop), "test", po); err != nil {
		t.Fatal(err)
	}
	v3 := promptfile.Hash([]byte(prop))
	for i := 0; i < 5; i++ {
		r.run(v3, 20)
	}
	last := r.records()[len(r.records())-1]
	if last.Kind != KindRollback || !last.Applied || last.From != v3 {
		t.Fatalf("a proposal graded F: %+v", last)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v1body {
		t.Fatalf("the proposal was not rolled back: %q", b)
	}
}

func TestRollbackEditsAutoPerSkill(t *testing.T) {
	o := trustOptions()
	o.RollbackEdits = RollbackEditsAsk
	auto := RollbackEditsAuto
	o.Skills = map[string]Override{"deploy": {RollbackEdits: &auto}}
	r := newEngineRig(t, o)
	v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	for i := 0; i < 6; i++ {
		r.run(v1, 85)
	}
	v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nJust try things.\n")
	for i := 0; i < 5; i++ {
		r.run(v2, 20)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v1body {
		t.Fatalf("skills.deploy.mutation.rollback_edits auto: not rolled back: %+v", r.records())
	}
}

// TestPinnedSkillIsNeverWritten: a pinned skill is never written and
// never decided against; pinning another version restores it first.
func TestPinnedSkillIsNeverWritten(t *testing.T) {
	r := newEngineRig(t, trustOptions())
	v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	for i := 0; i < 6; i++ {
		r.run(v1, 85)
	}
	edit := "---\nname: deploy\n---\n# Deploy\n\nJust try things.\n"
	v2 := r.write(edit)
	rec, err := r.e.Pin(r.skill, "")
	if err != nil || rec.Kind != KindPin || rec.To != v2 {
		t.Fatalf("pin: %+v %v", rec, err)
	}
	for i := 0; i < 8; i++ {
		r.run(v2, 20)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != edit {
		t.Fatal("a pinned skill's file was rewritten")
	}
	for _, rec := range r.records() {
		if rec.Kind != KindPin {
			t.Errorf("a pinned skill was decided about: %+v", rec)
		}
	}
	if st, _ := Statuses(r.db, r.skill); st[v2] != StatusPinned {
		t.Errorf("status %q, want pinned", st[v2])
	}
	var ref *proposal.RefusalError
	if _, err := r.e.ManualRollback(r.skill, "v1"); !errors.As(err, &ref) || ref.Rule != "pinned" {
		t.Errorf("rollback of a pinned skill: %v", err)
	}
	// Pinning v1 restores it; unpinning lets the rules work again.
	if rec, err := r.e.Pin(r.skill, "v1"); err != nil || rec.To != v1 {
		t.Fatalf("pin v1: %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v1body {
		t.Fatalf("pin v1 did not restore it: %q", b)
	}
	if _, err := r.e.Unpin(r.skill); err != nil {
		t.Fatal(err)
	}
	if _, err := r.e.Unpin(r.skill); !errors.As(err, &ref) || ref.Rule != "not_pinned" {
		t.Errorf("second unpin: %v", err)
	}
}

// TestRollbackOfADegradedBaseline: a person's accepted version that later
// degrades is told as "would roll back"; `sepad rollback SKILL` (no
// --to) then goes to the best other version, not to itself.
func TestRollbackOfADegradedBaseline(t *testing.T) {
	o := trustOptions()
	o.RollbackEdits = RollbackEditsAsk
	o.Decide.Method = decide.MethodSepa
	r := newEngineRig(t, o)
	v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	for i := 0; i < 5; i++ {
		r.run(v1, 70)
	}
	v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks in parallel, deploy, verify.\n")
	for i := 0; i < 5; i++ {
		r.run(v2, 90)
	}
	for i := 0; i < 12; i++ {
		r.run(v2, 20)
	}
	recs := r.records()
	last := recs[len(recs)-1]
	if last.Kind != KindWouldRollBack || last.From != v2 || !strings.Contains(last.Words, "sepad rollback deploy --to v1") {
		t.Fatalf("records %+v", recs)
	}
	if n := len(recs); recs[n-2].Kind == KindWouldRollBack {
		t.Errorf("told twice: %+v", recs[n-2:])
	}
	rec, err := r.e.ManualRollback(r.skill, "")
	if err != nil || !rec.Applied || rec.To != v1 {
		t.Fatalf("sepad rollback deploy: %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v1body {
		t.Fatalf("file %q", b)
	}
}
