package mutation

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
)

// TestEvalGate: with an eval gate, a proposal runs the gate (outside the
// engine's lock) after every other rule; a refusal is recorded and
// returned naming the failing cases, and nothing is written; a held gate
// is said in the proposal's record; a gate that cannot run refuses; a
// skill without a suite is not gated; a baseline that changes while the
// suite runs refuses the candidate.
func TestEvalGate(t *testing.T) {
	var calls []GateCandidate
	var during func()
	o := trustOptions()
	o.EvalGate = func(ctx context.Context, c GateCandidate) (*evals.Verdict, error) {
		calls = append(calls, c)
		if during != nil {
			during()
		}
		text := string(c.Content)
		switch {
		case strings.Contains(text, "no suite"):
			return nil, nil
		case strings.Contains(text, "broken"):
			return nil, errors.New("claude: not found")
		}
		score := map[string]float64{"ships": 1, "rollback": 1}
		if strings.Contains(text, "skip") {
			score["rollback"] = 0
		}
		cand := &evals.Evidence{Version: c.Candidate, Threshold: 1, Runs: 1}
		for _, n := range []string{"rollback", "ships"} {
			cand.Cases = append(cand.Cases, evals.Case{Name: n, Score: score[n], Runs: 1})
			cand.Score += score[n] / 2
		}
		base := &evals.Evidence{Version: c.Baseline, Score: 1, Cases: []evals.Case{{Name: "rollback", Score: 1}, {Name: "ships", Score: 1}}}
		drop := 0.1
		v := evals.Judge(cand, base, evals.Gate{MaxDrop: &drop})
		return &v, nil
	}
	r := newEngineRig(t, o)
	v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	po := proposal.DefaultOptions()
	po.MinExecutions = 0

	// A rule the text breaks refuses it before the suite runs.
	if _, err := r.e.Propose(r.skill, []byte("x"), "test", po); err == nil || len(calls) != 0 {
		t.Fatalf("a too short text: %v, %d gate calls", err, len(calls))
	}

	bad := "---\nname: deploy\n---\n# Deploy\n\nDeploy fast: skip the checks.\n"
	_, err := r.e.Propose(r.skill, []byte(bad), "test", po)
	var re *proposal.RefusalError
	if !errors.As(err, &re) || re.Rule != RuleEvalGate || !strings.Contains(re.Detail, "case rollback (0.00) is below the threshold 1.00") || !strings.Contains(re.Detail, "fell: rollback (1.00 → 0.00)") {
		t.Fatalf("a failing candidate: %v", err)
	}
	if len(calls) != 1 || calls[0].Baseline != v1 || string(calls[0].BaselineContent) != v1body || calls[0].Candidate != promptfile.Hash([]byte(bad)) || calls[0].Path != r.skill {
		t.Fatalf("gate calls %+v", calls)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v1body {
		t.Fatalf("a refused candidate was written: %q", b)
	}
	last := r.records()[len(r.records())-1]
	if last.Kind != KindEvalGate || last.Applied || last.Gate == nil || last.Gate.Held || len(last.Gate.Failing) != 1 || last.From != v1 ||
		!strings.Contains(last.Words, "not written: refused by eval gate: case rollback (0.00)") {
		t.Fatalf("the refusal's record: %+v", last)
	}

	good := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, stop at the first failure, then deploy.\n"
	rec, err := r.e.Propose(r.skill, []byte(good), "test", po)
	if err != nil || !rec.Applied || rec.Gate == nil || !rec.Gate.Held || !strings.Contains(rec.Words, "it is the candidate; eval gate held: 1.00 over 2 cases × 1 run") {
		t.Fatalf("a passing candidate: %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != good {
		t.Fatalf("the passing candidate was not written: %q", b)
	}
	if last := r.records()[len(r.records())-1]; last.Gate == nil || !last.Gate.Held {
		t.Fatalf("the proposal's stored record: %+v", last)
	}

	// A gate that cannot run refuses.
	r.e.mu.Lock()
	r.e.states[r.skill].Proposals = nil
	r.e.mu.Unlock()
	broken := good + "\nbroken\n"
	if _, err := r.e.Propose(r.skill, []byte(broken), "test", po); !errors.As(err, &re) || !strings.Contains(re.Detail, "could not run: claude: not found") {
		t.Fatalf("a gate that cannot run: %v", err)
	}
	// No suite: not gated.
	nosuite := good + "\nno suite\n"
	if rec, err := r.e.Propose(r.skill, []byte(nosuite), "test", po); err != nil || rec.Gate != nil || strings.Contains(rec.Words, "eval gate") {
		t.Fatalf("a skill without a suite: %+v %v", rec, err)
	}

	// The baseline changes while the suite runs: a person edits the file.
	edit := good + "\nA person's line.\n"
	during = func() { r.write(edit) }
	_, err = r.e.Propose(r.skill, []byte(good+"\nMore.\n"), "test", po)
	if !errors.As(err, &re) || re.Rule != RuleEvalGate || !strings.Contains(re.Detail, "changed from") {
		t.Fatalf("a baseline changed during the suite: %v", err)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != edit {
		t.Fatalf("the person's edit was overwritten: %q", b)
	}
}
