package mutation

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/proposal"
)

// The eval gate (mutation.eval_gate; docs/claude-code.md, "The eval
// gate"): a proposed or evolved text of a skill with an eval suite runs
// the suite before it is written. The engine only asks EngineOptions.
// EvalGate, outside its lock, and records the verdict; running the suite
// (evals.RunSuite) and judging it (evals.Judge) are the caller's.

// RuleEvalGate names a refusal by the eval gate; KindEvalGate is its
// decision record.
const (
	RuleEvalGate = "eval_gate"
	KindEvalGate = "eval_gate"
)

// GateCandidate is a text the eval gate evaluates: the skill, its prompt
// file, the baseline it is compared with and the text.
type GateCandidate struct {
	SkillKey string
	Skill    string
	Path     string
	// Baseline is the baseline's hash ("" when the skill has none yet),
	// BaselineContent its text.
	Baseline        string
	BaselineContent []byte
	// Candidate is Content's hash.
	Candidate string
	Content   []byte
	// Cases, when set, are the only cases the gate runs: the ones a
	// mutator's request held out (proposal.Options.GateCases); nil runs the
	// whole suite.
	Cases []string
}

// EvalGate runs the eval suite of a candidate and judges it. It returns
// nil, nil when the gate does not apply (the skill has no suite); an
// error when the suite could not run, which refuses the candidate.
type EvalGate func(ctx context.Context, c GateCandidate) (*evals.Verdict, error)

// runGate asks the gate about c. A refusal is recorded in the skill's
// decision log and returned as a *RefusalError naming the failing cases;
// nil, nil is a gate that does not apply.
func (e *Engine) runGate(ctx context.Context, c GateCandidate) (*evals.Verdict, error) {
	v, err := e.opts.EvalGate(ctx, c)
	if err != nil {
		v = &evals.Verdict{Candidate: c.Candidate, Baseline: c.Baseline, Words: "refused by eval gate: the eval suite could not run: " + err.Error()}
	}
	if v == nil || v.Held {
		return v, nil
	}
	rec := Record{Kind: KindEvalGate, SkillKey: c.SkillKey, Skill: c.Skill, Rule: RuleEvalGate, From: c.Baseline, To: c.Candidate,
		Words: fmt.Sprintf("proposal %s not written: %s", c.Candidate, v.Words), Gate: v}
	e.mu.Lock()
	rerr := e.record(rec)
	e.mu.Unlock()
	if rerr != nil {
		return nil, rerr
	}
	return nil, &proposal.RefusalError{Rule: RuleEvalGate, Detail: strings.TrimPrefix(v.Words, "refused by eval gate: ")}
}

// GateTimeout is how long a proposal may wait for the eval gate now (0
// when it is off).
func (e *Engine) GateTimeout() time.Duration {
	if e == nil || e.opts.EvalGate == nil || e.opts.GateTimeout == nil {
		return 0
	}
	return e.opts.GateTimeout()
}
