// Package evalgate is the eval gate (mutation.eval_gate): a candidate
// text's eval suite run through a private plugin (evals.RunSuite) and
// judged against the threshold and the baseline's recorded score
// (evals.Judge), each complete run recorded as evidence. The daemon's
// engine asks it before a proposal is written; `sepad eval --gate` asks
// it for a person's edit.
package evalgate

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/mutation"
)

// New is the eval gate as configured (mutation.eval_gate, or the
// skill's skills.NAME.mutation.eval_gate; read at each proposal: a reload
// applies): for a skill with an eval suite beside
// its SKILL.md, it runs the suite on the candidate's text with
// mutation.claude (evals.RunSuite, a private temporary plugin) and judges
// it against the threshold and the baseline's recorded score
// (evals.Judge). Without a recorded score of the baseline, and with
// max_drop set, the baseline's suite runs first and is recorded too. Both
// runs are recorded as evidence in home's evals.jsonl (source "eval
// gate"), a refused candidate's included: it is evidence about that text.
// A mutator's text (c.Cases set by evolve) is judged on the cases its
// request held out, the baseline's recorded score on the same cases.
func New(cfg func() *config.Config, home string) mutation.EvalGate {
	return func(ctx context.Context, c mutation.GateCandidate) (*evals.Verdict, error) {
		conf := cfg()
		g := conf.MutationFor(c.Skill).EvalGate
		if !g.On() {
			return nil, nil
		}
		if _, ok := evals.SuiteDir(c.Path); !ok {
			return nil, nil
		}
		ctx, cancel := context.WithTimeout(ctx, Timeout(g))
		defer cancel()
		return Suite(ctx, conf.Mutation.Claude, g, home, c, "eval gate")
	}
}

// Suite runs c's suite (and the baseline's, when max_drop is set and
// no score of the baseline is recorded) with claude and judges it with
// g; each complete run is recorded in home's evals.jsonl with source.
// The daemon's gate and `sepad eval --gate` share it.
func Suite(ctx context.Context, claude string, g config.EvalGate, home string, c mutation.GateCandidate, source string) (*evals.Verdict, error) {
	var args []string
	if g.Threshold != nil {
		args = []string{"--threshold", strconv.FormatFloat(*g.Threshold, 'f', -1, 64)}
	}
	if len(g.AllowTools) > 0 {
		args = append(append(args, "--allow-tools"), g.AllowTools...)
	}
	run := func(version string, content []byte) (*evals.Evidence, error) {
		ev, _, err := evals.RunSuite(ctx, evals.RunOptions{Claude: claude, Prompt: c.Path, Content: content, Args: args, Cases: c.Cases})
		if err != nil {
			return nil, err
		}
		ev.SkillKey, ev.Skill, ev.Version, ev.At, ev.Source = c.SkillKey, c.Skill, version, time.Now().UTC(), source
		if !ev.Partial {
			if err := evals.Append(home, *ev); err != nil {
				return nil, err
			}
		}
		return ev, nil
	}
	var base *evals.Evidence
	if g.MaxDrop != nil && c.Baseline != "" {
		all, err := evals.Load(home)
		if err != nil {
			return nil, err
		}
		base = evals.Latest(all)[[2]string{c.SkillKey, c.Baseline}]
		if base != nil && c.Cases != nil {
			if _, ok := base.Only(c.Cases); !ok {
				base = nil // it lacks a case the candidate runs: run them
			}
		}
		if base == nil && len(c.BaselineContent) > 0 {
			if base, err = run(c.Baseline, c.BaselineContent); err != nil {
				return nil, fmt.Errorf("the baseline %s: %w", c.Baseline, err)
			}
			if base.Partial {
				return nil, fmt.Errorf("the baseline %s: its suite stopped early (%s)", c.Baseline, orDash(base.PartialReason))
			}
		}
	}
	ev, err := run(c.Candidate, c.Content)
	if err != nil {
		return nil, err
	}
	if c.Cases != nil {
		// Like for like: the held-out cases' mean on both sides.
		ev, _ = ev.Only(c.Cases)
		if base != nil {
			base, _ = base.Only(c.Cases)
		}
	}
	v := evals.Judge(ev, base, evals.Gate{Threshold: g.Threshold, MaxDrop: g.MaxDrop})
	if c.Cases != nil {
		v.Words += fmt.Sprintf("; held-out cases only (the mutator was shown the others): %s", strings.Join(c.Cases, ", "))
	}
	return &v, nil
}

// Timeout is an eval gate's timeout, or the default.
func Timeout(g config.EvalGate) time.Duration {
	if g.Timeout > 0 {
		return g.Timeout
	}
	return config.DefaultEvalGateTimeout
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
