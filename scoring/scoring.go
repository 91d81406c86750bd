// Package scoring is sepad's one scorer: the daemon's collector and
// `sepad score` both score an execution here, with the configuration's
// limits, checks, verification patterns and signal weights, and check its
// answer's claims against its calls (package integrity) with the same
// outcome report, before anything is committed: the store persists what
// it is given.
package scoring

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/sepad/sepad/checks"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/outcome"
	"github.com/sepad/sepad/reward"
)

// Scored is one execution's score and its claims checked.
type Scored struct {
	Result    fitness.Result
	Integrity *integrity.Report
}

// Scorer scores executions with the configuration in force. Its optional
// signals' weights are those of the configuration it was made with: they
// are its rubric version, so Reload keeps them.
type Scorer struct {
	cfg     atomic.Pointer[config.Config]
	weights fitness.OptionalWeights
	// rules are the compiled verification patterns per configuration
	// seen and skill, so that each is compiled once.
	rules sync.Map // rulesKey → *outcome.Rules
}

type rulesKey struct {
	cfg   *config.Config
	skill string
}

// New returns a scorer with cfg.
func New(cfg *config.Config) *Scorer {
	s := &Scorer{weights: Weights(cfg)}
	s.cfg.Store(cfg)
	return s
}

// Reload gives the scorer a new configuration (SIGHUP): limits, checks
// and verification patterns apply at once, the weights stay.
func (s *Scorer) Reload(cfg *config.Config) { s.cfg.Store(cfg) }

// Config is the configuration in force.
func (s *Scorer) Config() *config.Config { return s.cfg.Load() }

// Rubric is the rubric version of the scores s makes.
func (s *Scorer) Rubric() string { return fitness.RubricFor(s.weights) }

// Weights maps the configuration to the optional signals' weights.
func Weights(cfg *config.Config) fitness.OptionalWeights {
	return fitness.OptionalWeights{Label: cfg.Scoring.LabelWeight, Checks: cfg.Scoring.ChecksWeight, Outcome: cfg.Scoring.OutcomeWeight}
}

// Rubric is the rubric version of the scores made with cfg: the one
// whose aggregates the store's queries read.
func Rubric(cfg *config.Config) string { return fitness.RubricFor(Weights(cfg)) }

// Score scores x and checks its answer's claims against its calls with
// the score's outcome report (read once per execution).
func (s *Scorer) Score(x *execution.Execution) Scored {
	res := s.Result(x)
	return Scored{Result: res, Integrity: integrity.Check(x, res.Outcome)}
}

// Result scores x: the limits of its skill's complexity, the skill's
// checks (skills.NAME.checks) run on its final output and on its project
// as it is now, confined to it by an os.Root, and the optional signals'
// weights.
func (s *Scorer) Result(x *execution.Execution) fitness.Result {
	cfg := s.cfg.Load()
	_, lim := cfg.LimitFor(x.Skill)
	ex := fitness.Extra{Weights: s.weights, Verify: s.rulesOf(cfg, x.Skill)}
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

// rulesOf compiles the verification patterns of a skill: outcome.verify
// and skills.NAME.verify (validated when the configuration was loaded).
func (s *Scorer) rulesOf(cfg *config.Config, skill string) *outcome.Rules {
	ps := cfg.VerifyFor(skill)
	if len(ps) == 0 {
		return nil
	}
	k := rulesKey{cfg, ""}
	if len(cfg.SkillVerify[skill]) > 0 {
		k.skill = skill
	}
	if r, ok := s.rules.Load(k); ok {
		return r.(*outcome.Rules)
	}
	r, err := outcome.Compile(ps)
	if err != nil {
		return nil // config.validate compiled them already
	}
	s.rules.Store(k, r)
	return r
}

// Relabel is how a label changes a stored result: the label signal set
// to the newest label (fitness.WithLabel; results of another rubric are
// kept as they are).
func (s *Scorer) Relabel(r fitness.Result, l reward.Label) fitness.Result {
	return fitness.WithLabel(r, &fitness.Evidence{Score: l.Score, Detail: l.Words()}, s.weights)
}
