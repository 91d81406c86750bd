package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/sepad/sepad/checks"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/outcome"
	"github.com/sepad/sepad/reward"
)

// weightsOf maps the configuration to the optional signals' weights.
func weightsOf(cfg *config.Config) fitness.OptionalWeights {
	return fitness.OptionalWeights{Label: cfg.Scoring.LabelWeight, Checks: cfg.Scoring.ChecksWeight, Outcome: cfg.Scoring.OutcomeWeight}
}

// verifyRules are the compiled verification patterns per configuration
// seen (a reload brings a new one) and skill, so that each is compiled
// once.
var verifyRules sync.Map // rulesKey → *outcome.Rules

type rulesKey struct {
	cfg   *config.Config
	skill string
}

// rulesOf compiles the verification patterns of a skill: outcome.verify
// and skills.NAME.verify (validated when the configuration was loaded).
func rulesOf(cfg *config.Config, skill string) *outcome.Rules {
	ps := cfg.VerifyFor(skill)
	if len(ps) == 0 {
		return nil
	}
	k := rulesKey{cfg, ""}
	if len(cfg.SkillVerify[skill]) > 0 {
		k.skill = skill
	}
	if r, ok := verifyRules.Load(k); ok {
		return r.(*outcome.Rules)
	}
	r, err := outcome.Compile(ps)
	if err != nil {
		return nil // config.validate compiled them already
	}
	verifyRules.Store(k, r)
	return r
}

// rubricOf is the rubric version of the scores made with cfg: the one
// whose aggregates the store's queries read.
func rubricOf(cfg *config.Config) string { return fitness.RubricFor(weightsOf(cfg)) }

// scoreExecution scores an execution with cfg: the limits of its skill's
// complexity, the skill's checks (skills.NAME.checks) run on its final
// output and on its project as it is now, confined to it by an os.Root,
// and the optional signals' weights w (fixed for a daemon's life: they
// are its rubric version).
func scoreExecution(cfg *config.Config, w fitness.OptionalWeights, x *execution.Execution) fitness.Result {
	_, lim := cfg.LimitFor(x.Skill)
	ex := fitness.Extra{Weights: w, Verify: rulesOf(cfg, x.Skill)}
	if cs := cfg.ChecksFor(x.Skill); len(cs) > 0 {
		in := checks.Input{Output: x.Output, HasOutput: x.HasOutput}
		switch {
		case x.Project == "":
		case !filepath.IsAbs(x.Project):
			in.ProjectError = fmt.Errorf("project %q is not an absolute path", x.Project)
		default:
			root, err := os.OpenRoot(x.Project)
			if err != nil {
				in.ProjectError = err
			} else {
				defer root.Close()
				in.Project = root.FS()
			}
		}
		r := checks.Run(cs, in)
		ex.Checks = &fitness.Evidence{Score: r.Score, Detail: r.Detail}
	}
	return fitness.ScoreWith(x, fitness.Limits{MaxTime: lim.Time, MaxTools: lim.Tools, MaxTokens: lim.Tokens}, ex)
}

// rescoreLabel is how a label changes a stored result: the label signal
// set to the newest label (fitness.WithLabel; results of another rubric
// are kept as they are).
func rescoreLabel(w fitness.OptionalWeights) func(fitness.Result, reward.Label) fitness.Result {
	return func(r fitness.Result, l reward.Label) fitness.Result {
		return fitness.WithLabel(r, &fitness.Evidence{Score: l.Score, Detail: l.Words()}, w)
	}
}
