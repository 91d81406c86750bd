package evolve

import (
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
)

func (r *rig) startAuto(below fitness.Grade, skills ...string) {
	r.ev.StartAuto(AutoOptions{MinSamples: 5, Mode: func(skill string) (bool, fitness.Grade) {
		for _, s := range skills {
			if s == skill {
				return true, below
			}
		}
		return false, below
	}})
	r.t.Cleanup(r.ev.Close)
}

func TestAutoModeEvolvesAWeakSkill(t *testing.T) {
	r := newRig(t)
	r.startAuto(fitness.B, "deploy")
	h1 := r.write(v1)
	for i := 0; i < 4; i++ {
		r.run(h1, 55, 0.5)
	}
	if len(r.notices) != 0 || r.calls() != 0 {
		t.Fatalf("evolved before the version was graded with min_samples runs: %q", r.notices)
	}
	r.run(h1, 55, 0.5) // the fifth: v1 is the baseline, graded D
	got := r.attempts()
	if len(got) != 1 || !got[0].Auto || got[0].Outcome != OutcomeCandidate || got[0].Strategy != "constraint_add" {
		t.Fatalf("attempts %+v", got)
	}
	if len(r.notices) != 2 || !strings.HasPrefix(r.notices[0], "sepad is evolving deploy v1") || !strings.HasPrefix(r.notices[1], "sepad evolved deploy v1 → v2") {
		t.Fatalf("notices %q", r.notices)
	}
	// While v2 is the candidate nothing more is evolved.
	for i := 0; i < 4; i++ {
		r.run(got[0].To, 58, 0.5)
	}
	if n := len(r.attempts()); n != 1 {
		t.Fatalf("%d attempts while the candidate was undecided", n)
	}
}

func TestAutoModeOffAndGoodSkillsAreLeftAlone(t *testing.T) {
	r := newRig(t)
	r.startAuto(fitness.C, "deploy") // evolve below C: a B is fine
	h1 := r.write(v1)
	for i := 0; i < 8; i++ {
		r.run(h1, 75, 0)
	}
	if r.calls() != 0 || len(r.attempts()) != 0 {
		t.Fatal("a B-graded skill evolved with evolve_below C")
	}
	r2 := newRig(t)
	r2.startAuto(fitness.B, "other") // deploy is off
	h := r2.write(v1)
	for i := 0; i < 8; i++ {
		r2.run(h, 40, 0.5)
	}
	if r2.calls() != 0 {
		t.Fatal("a skill with automatic mode off evolved")
	}
}

// TestAutoModeLimitsUnderRepeatedTriggers: every execution triggers, the
// mutator's candidates are all worse and rolled back, and the limits
// still hold: at most 10 proposals a day, at least 3 executions between
// two, never two at once.
func TestAutoModeLimitsUnderRepeatedTriggers(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of concurrent or simulated work: runs without -short")
	}
	r := newRig(t)
	r.mode = "novel" // a rejected answer is never proposed again
	r.startAuto(fitness.B, "deploy")
	h1 := r.write(v1)
	for i := 0; i < 120; i++ { // two hours at a run a minute
		sk, err := r.db.Skill(r.key())
		if err != nil {
			t.Fatal(err)
		}
		score := 55.0
		if sk.Current != h1 {
			score = 30 // the candidate is worse: rejected and rolled back
		}
		r.run(sk.Current, score, 0.5)
	}
	got := r.attempts()
	if len(got) != 10 {
		t.Fatalf("%d attempts in two hours, want the day's limit of 10", len(got))
	}
	for i, a := range got {
		if a.Outcome != OutcomeCandidate {
			t.Errorf("attempt %d: %s %s", i, a.Outcome, a.Words)
		}
		if i > 0 && a.Time.Sub(got[i-1].Time) < 3*time.Minute {
			t.Errorf("attempts %d and %d only %v apart (3 executions needed)", i-1, i, a.Time.Sub(got[i-1].Time))
		}
	}
	st, _ := mutation.Statuses(r.db, r.key())
	rolled := 0
	for _, s := range st {
		if s == mutation.StatusRejected || s == mutation.StatusRolledBack {
			rolled++
		}
	}
	if rolled == 0 {
		t.Errorf("no candidate was rolled back: %v", st)
	}
	if r.file() != v1 && len(r.attempts()) == 10 {
		// the tenth candidate may still be undecided: then it is in the file
		if promptfile.Hash([]byte(r.file())) != got[9].To {
			t.Errorf("the file holds neither v1 nor the last candidate")
		}
	}
	// A day later the limit lets the next one through.
	r.now = r.now.Add(24 * time.Hour)
	for i := 0; i < 8 && len(r.attempts()) == 10; i++ {
		sk, _ := r.db.Skill(r.key())
		r.run(sk.Current, 30, 0.5)
	}
	if len(r.attempts()) != 11 {
		t.Errorf("%d attempts a day later, want 11", len(r.attempts()))
	}
}

// TestAutoModeFailingMutatorIsBounded: a mutator that always fails is
// retried every third execution, at most 10 times a day, each time told.
func TestAutoModeFailingMutatorIsBounded(t *testing.T) {
	r := newRig(t)
	r.mode = "fail"
	r.startAuto(fitness.B, "deploy")
	h1 := r.write(v1)
	for i := 0; i < 60; i++ {
		r.run(h1, 55, 0.5)
	}
	got := r.attempts()
	if len(got) != 10 {
		t.Fatalf("%d failed attempts in an hour, want the day's 10", len(got))
	}
	for i, a := range got {
		if a.Outcome != OutcomeFailed || a.Rule != RuleMutatorFailed || !strings.Contains(a.Error, "no credentials") {
			t.Errorf("attempt %d: %+v", i, a)
		}
		if i > 0 && a.Time.Sub(got[i-1].Time) < 3*time.Minute {
			t.Errorf("attempts %d and %d %v apart", i-1, i, a.Time.Sub(got[i-1].Time))
		}
	}
	if r.file() != v1 {
		t.Error("a failing mutator changed the file")
	}
	r.mu.Lock()
	n := len(r.notices)
	r.mu.Unlock()
	if n != 20 { // the start and the failure of each
		t.Errorf("%d notices, want 20", n)
	}
}
