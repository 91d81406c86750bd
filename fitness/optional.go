package fitness

import (
	"strconv"
	"strings"

	"github.com/sepad/sepad/outcome"
)

// OptionalWeights are the nominal weights of the optional signals
// (scoring.label_weight, scoring.checks_weight). The five SEPA signals
// weigh 1 together; an optional signal that is present adds its weight,
// and every present weight is divided by the sum (renormalisation).
type OptionalWeights struct {
	Label  float64
	Checks float64
	// Outcome weighs the outcome signal (scoring.outcome_weight, since
	// 4.0.0).
	Outcome float64
}

// DefaultWeights are the optional signals' default nominal weights.
var DefaultWeights = OptionalWeights{Label: 0.25, Checks: 0.25, Outcome: 0.5}

// RubricFor is the rubric version of scores made with weights w:
// RubricVersion with the default weights, else RubricVersion with the
// weights as build metadata ("4.0.0+label=0.4,checks=0.25,outcome=0.5"), so that
// scores made with other weights are never aggregated together.
func RubricFor(w OptionalWeights) string {
	if w == DefaultWeights {
		return RubricVersion
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return RubricVersion + "+label=" + f(w.Label) + ",checks=" + f(w.Checks) + ",outcome=" + f(w.Outcome)
}

// SameRules reports whether scores of rubric version v were made by this
// rubric's rules, whatever the optional signals' weights (RubricFor): the
// signals' values compare across them, the scores do not.
func SameRules(v string) bool {
	return v == RubricVersion || strings.HasPrefix(v, RubricVersion+"+")
}

// Evidence is what an optional signal measured: a sub-score in [0, 1] and
// its detail.
type Evidence struct {
	Score  float64
	Detail string
}

// Extra is the evidence of the optional signals, nil when absent.
type Extra struct {
	// Checks is the mean of the skill's checks (package checks), when the
	// skill has any.
	Checks *Evidence
	// Label is the newest label's normalised score, when the execution
	// has a label.
	Label *Evidence
	// Weights are the optional signals' nominal weights.
	Weights OptionalWeights
	// Verify are the configured verification patterns (outcome.verify);
	// nil reads the default runners only.
	Verify *outcome.Rules
}

func optional(name string, e *Evidence, w float64) Signal {
	v := clamp01(e.Score)
	return Signal{Signal: name, Present: true, Value: v, SubScore: v, Weight: w, Detail: e.Detail}
}

// WithLabel returns r with its label signal set to l (nil removes it) and
// the score combined again, as ScoreWith would have scored the execution
// with that label. A result made under another rubric version than
// RubricFor(w) is returned unchanged: a label never moves a score of an
// older rubric.
func WithLabel(r Result, l *Evidence, w OptionalWeights) Result {
	if r.RubricVersion != RubricFor(w) {
		return r
	}
	sigs := make([]Signal, 0, len(r.Signals)+1)
	for _, s := range r.Signals {
		if s.Signal == SignalLabel {
			continue
		}
		s.EffectiveWeight, s.Contribution = 0, 0
		sigs = append(sigs, s)
	}
	if l != nil {
		sigs = append(sigs, optional(SignalLabel, l, w.Label))
	}
	out := Result{RubricVersion: r.RubricVersion, Signals: sigs, Errors: r.Errors, Outcome: r.Outcome}
	combine(&out)
	return out
}
