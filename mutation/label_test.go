package mutation

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

func labelOptions() EngineOptions {
	return EngineOptions{Decide: decide.Options{Method: decide.MethodSequential, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2},
		AutoRollback: true, RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 0.5, GradeMin: 3, RollbackEdits: RollbackEditsAuto,
		Rescore: func(r fitness.Result, l reward.Label) fitness.Result {
			return fitness.WithLabel(r, &fitness.Evidence{Score: l.Score, Detail: l.Words()}, fitness.DefaultWeights)
		}}
}

// runReal commits one execution scored by fitness (three successful
// calls that edit nothing: 94.29 with medium limits) and lets the engine
// see it.
func (r *engineRig) runReal(version string) string {
	r.t.Helper()
	r.n++
	r.now = r.now.Add(time.Minute)
	x := execution.Execution{ID: fmt.Sprintf("e%011d", r.n), SessionID: "s", Skill: "deploy", Kind: "skill", Project: r.proj,
		SkillPath: r.skill, SkillVersion: version, Complete: true,
		Calls: []execution.ToolCall{{Name: "Bash", Done: true}, {Name: "Read", Done: true}, {Name: "Grep", Done: true}}}
	res := fitness.Score(&x, fitness.Limits{MaxTime: 2 * time.Minute, MaxTools: 15})
	b := store.Batch{Executions: []record.Scored{{Exec: x, Result: res}}}
	if err := r.db.Commit(&b); err != nil {
		r.t.Fatal(err)
	}
	r.e.Observe(b.Executions)
	return x.ID
}

func (r *engineRig) state() SkillState {
	r.t.Helper()
	sk, err := r.db.Skill(r.skill)
	if err != nil || sk == nil {
		r.t.Fatalf("skill: %v", err)
	}
	st, err := r.e.state(sk.Key)
	if err != nil {
		r.t.Fatal(err)
	}
	return *st
}

// TestLabelTurnsPendingDecision: a candidate whose runs score like the
// baseline's is pending (the sequential test sees no difference); labels
// of failure on its runs lower their scores (the label signal) and its
// aggregate, and the engine, applying each label in the commit order,
// rejects it and rolls the file back, without any new execution. The same
// history replayed into a fresh store, with an engine started cold
// between the executions and the labels, makes the same decisions.
func TestLabelTurnsPendingDecision(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of concurrent or simulated work: runs without -short")
	}
	scenario := func(restart bool) ([]Record, []string, int) {
		r := newEngineRig(t, labelOptions())
		v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
		v1 := r.write(v1body)
		for i := 0; i < 8; i++ {
			r.runReal(v1)
		}
		v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nDeploy without the checks.\n")
		var ids []string
		for i := 0; i < 8; i++ {
			ids = append(ids, r.runReal(v2))
		}
		st := r.state()
		if st.Baseline != v1 || st.Candidate != v2 || st.Status[v2] != StatusCandidate || st.Pending == nil || len(r.records()) != 0 {
			t.Fatalf("v2 not pending before the labels: %+v, records %+v", st, r.records())
		}
		if restart {
			r.e.Close()
			r.e = NewEngine(r.db, func() EngineOptions {
				o := labelOptions()
				o.Now = func() time.Time { return r.now }
				o.ExtraRoots = []string{r.proj}
				o.Debounce = 20 * time.Millisecond
				return o
			}())
			if err := r.e.Open(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		var scores []string
		turned := 0
		for i, id := range ids {
			r.now = r.now.Add(time.Minute)
			l, err := reward.New(id, reward.Input{Outcome: reward.Failure, Rater: "ana"}, r.now)
			if err != nil {
				t.Fatal(err)
			}
			ap, err := r.e.Label(l)
			if err != nil {
				t.Fatal(err)
			}
			if !ap.Rescored || ap.Before.Score != 94.29 || ap.Execution.Result.Score != 69.47 {
				t.Fatalf("label %d: rescored %v %v → %v", i, ap.Rescored, ap.Before.Score, ap.Execution.Result.Score)
			}
			scores = append(scores, fmt.Sprint(ap.Execution.Result.Score))
			if turned == 0 && r.state().Status[v2] == StatusRejected {
				turned = i + 1
			}
		}
		if turned == 0 {
			t.Fatalf("eight labelled failures did not turn the decision: %+v %+v", r.state(), r.state().Pending)
		}
		if b, _ := os.ReadFile(r.skill); string(b) != v1body {
			t.Errorf("v2 rejected but the file was not rolled back:\n%s", b)
		}
		// A restarted engine reads the rescored executions: nothing more
		// to decide, the same state.
		before := r.state()
		r.runReal(v1)
		if after := r.state(); after.Status[v2] != before.Status[v2] || after.Baseline != v1 {
			t.Errorf("state moved after a baseline run: %+v → %+v", before, after)
		}
		return r.records(), scores, turned
	}
	recs, scores, turned := scenario(false)
	again, scores2, turned2 := scenario(true)
	if len(recs) == 0 || recs[0].Kind != KindDecision || recs[0].Decision == nil || recs[0].Decision.Outcome != decide.Reject || !recs[0].Applied || !strings.Contains(recs[0].Words, "label") {
		t.Fatalf("records %+v", recs)
	}
	if turned != turned2 || fmt.Sprint(scores) != fmt.Sprint(scores2) || len(recs) != len(again) {
		t.Fatalf("replay differs: turned at label %d vs %d, %v vs %v, %d vs %d records", turned, turned2, scores, scores2, len(recs), len(again))
	}
	for i := range recs {
		if recs[i].Kind != again[i].Kind || recs[i].Rule != again[i].Rule || recs[i].Words != again[i].Words {
			t.Errorf("record %d differs:\n%+v\n%+v", i, recs[i], again[i])
		}
	}
	t.Logf("turned by label %d of 8: %s", turned, recs[0].Words)
}

// TestLabelWithoutRescoreKeepsScore: an engine without Rescore (labels
// beside the score) and a label of an execution of another rubric change
// no score and decide nothing.
func TestLabelWithoutRescoreKeepsScore(t *testing.T) {
	o := labelOptions()
	o.Rescore = nil
	r := newEngineRig(t, o)
	v1 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks.\n")
	id := r.runReal(v1)
	ap, err := r.e.Label(reward.Label{ExecutionID: id, Outcome: reward.Failure})
	if err != nil || ap.Rescored || ap.Execution.Result.Score != 94.29 {
		t.Fatalf("%+v %v", ap, err)
	}
	if _, err := r.e.Label(reward.Label{ExecutionID: "nope", Outcome: reward.Failure}); err == nil {
		t.Error("a label of no execution was accepted")
	}
}
