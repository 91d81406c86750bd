package mutation

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/proposal"
)

func trustOptions() EngineOptions {
	return EngineOptions{Decide: decide.Options{Method: decide.MethodSequential, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2},
		AutoRollback: true, RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 0.5, Cooldown: 0, GradeMin: 3, RollbackEdits: RollbackEditsAuto}
}

// TestSafetyRollbackNeedsMinSamples (issue 15 point 3): a safety rule
// rolls a version back only once it has mutation.min_samples scored
// executions, graded or not before, and the record says its numbers.
func TestSafetyRollbackNeedsMinSamples(t *testing.T) {
	r := newEngineRig(t, trustOptions())
	v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	for i := 0; i < 6; i++ {
		r.run(v1, 85)
	}
	v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nJust try things.\n")
	for i := 0; i < 4; i++ {
		r.run(v2, 20)
	}
	if recs := r.records(); len(recs) != 0 {
		t.Fatalf("rolled back on 4 runs (graded from 3, min_samples 5): %+v", recs)
	}
	r.run(v2, 20)
	recs := r.records()
	if len(recs) != 1 || recs[0].Kind != KindRollback || !recs[0].Applied || recs[0].From != v2 || recs[0].To != v1 {
		t.Fatalf("after 5 runs: %+v", recs)
	}
	for _, w := range []string{"20.00 (F) over 5 runs", "at least 5 runs", "held 85.00 (A) over 6 runs", "v1"} {
		if !strings.Contains(recs[0].Words, w) {
			t.Errorf("rollback words %q lack %q", recs[0].Words, w)
		}
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v1body {
		t.Fatalf("file not rolled back: %q", b)
	}
	ev := recs[0].Evidence
	if ev == nil || ev.From.N != 5 || ev.From.Score != 20 || ev.From.Grade != "F" || ev.To.N != 6 || ev.To.Score != 85 || ev.Delta != -65 {
		t.Fatalf("the rollback's evidence in JSON: %+v", ev)
	}
}

// TestThinBaselineIsNeverWaitedForEver (issue 15 point 3): a version
// accepted by hand below min_samples is recorded as a thin baseline with a
// warning, and a candidate is decided against what that baseline has
// instead of waiting for runs it can never get.
func TestThinBaselineIsNeverWaitedForEver(t *testing.T) {
	r := newEngineRig(t, trustOptions())
	v1 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n")
	for _, s := range []float64{40, 45, 42} {
		r.run(v1, s)
	}
	rec, err := r.e.ManualDecision(r.skill, true)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.ThinBaseline || !strings.Contains(rec.Warning, "3 scored runs, fewer than mutation.min_samples (5)") || strings.Contains(rec.Warning, "(s)") {
		t.Fatalf("accept below min_samples: %+v", rec)
	}
	v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks in parallel, deploy, verify.\n")
	for i := 0; i < 60 && len(r.records()) < 2; i++ {
		r.run(v2, 85+float64(i%3))
	}
	recs := r.records()
	if len(recs) != 2 {
		t.Fatalf("the candidate is still undecided after 60 runs: %+v", recs)
	}
	d := recs[1].Decision
	if d == nil || d.Outcome != decide.Accept || !d.ThinBaseline || !strings.Contains(d.Words, "baseline's 3 runs only") {
		t.Fatalf("decision %+v", recs[1])
	}
	// Three baseline runs give little information: the sequential test
	// decides at its last look at the latest, on what the baseline has.
	if d.Candidate.N > 60 {
		t.Errorf("decided after %d candidate runs, want at most max_samples 60", d.Candidate.N)
	}
}

// TestRollbackWithNothingToGoBackTo: `sepad rollback` and `sepad reject`
// of a skill's only version say so, instead of `no version "" to roll
// back to` (a new user's walk, issue 36 item 8).
func TestRollbackWithNothingToGoBackTo(t *testing.T) {
	r := newEngineRig(t, trustOptions())
	v1 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n")
	for _, s := range []float64{40, 45, 42} {
		r.run(v1, s)
	}
	_, err := r.e.ManualRollback(r.skill, "")
	var re *proposal.RefusalError
	if !errors.As(err, &re) || re.Rule != "no_target" || !strings.Contains(err.Error(), "deploy has no other graded version whose content sepad has seen") || strings.Contains(err.Error(), `""`) {
		t.Fatalf("rollback of the only version: %v", err)
	}
}

// TestProposeWithoutStrategy: `sepad propose` without --strategy says
// what it wrote without `strategy ""` (a new user's walk, issue 36).
func TestProposeWithoutStrategy(t *testing.T) {
	r := newEngineRig(t, trustOptions())
	r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n")
	po := proposal.DefaultOptions()
	po.MinExecutions = 0
	rec, err := r.e.Propose(r.skill, []byte("---\nname: deploy\n---\n# Deploy\n\nRun the checks, stop at the first failure, then deploy.\n"), "", po)
	if err != nil || !rec.Applied || !strings.Contains(rec.Words, "proposal written as v2 (") || !strings.HasSuffix(rec.Words, "; it is the candidate") || strings.Contains(rec.Words, "strategy") {
		t.Fatalf("%+v %v", rec, err)
	}
	rec, err = r.e.Propose(r.skill, []byte("---\nname: deploy\n---\n# Deploy\n\nRun the checks, stop at the first failure, deploy, then verify.\n"), "clarify", po)
	if err != nil || !strings.Contains(rec.Words, `, strategy "clarify"; it is the candidate`) {
		t.Fatalf("%+v %v", rec, err)
	}
}
