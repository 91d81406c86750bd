package query

import (
	"math"

	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/validity"
)

// ValidityRequest is GET /v1/validity and `sepad validity`.
type ValidityRequest struct {
	// Skill, when set, limits the report to one skill (a name, PROJECT#name
	// or a path, as Resolve takes it).
	Skill string
	// MinLabels and MinEach bound the verdicts (validity.Options).
	MinLabels, MinEach int
}

// Validity measures every signal's and the score's agreement with the
// verdicts sepad holds (package validity): each scored execution with a
// label, else whose answer the person corrected or accepted in their next
// prompt, else whose version's latest eval suite run passed or failed, is
// one observation, with its score recomputed without the signal that is
// that verdict itself (label, or the person's verdict): a verdict is not
// evidence for itself.
func Validity(db *store.DB, home string, req ValidityRequest) (*validity.Report, error) {
	o := validity.Options{MinLabels: req.MinLabels, MinEach: req.MinEach}
	rep := &validity.Report{Current: db.Rubric(), MinLabels: validity.DefaultMinLabels, MinEach: validity.DefaultMinEach}
	if o.MinLabels > 0 {
		rep.MinLabels = o.MinLabels
	}
	if o.MinEach > 0 {
		rep.MinEach = o.MinEach
	}
	key := ""
	if req.Skill != "" {
		ref, err := Resolve(db, req.Skill)
		if err != nil {
			return nil, err
		}
		key, rep.Skill = ref.Key, ref.Name
	}
	var latest map[[2]string]*evals.Evidence
	if home != "" {
		all, err := evals.Load(home)
		if err != nil {
			return nil, err
		}
		latest = evals.Latest(all)
	}
	var obs []validity.Observation
	err := db.Each(func(s *record.Scored, l *reward.Label) error {
		if key != "" && s.SkillKey != key || !s.Result.Scored {
			return nil
		}
		x, ok := observe(s, l, latest)
		if ok {
			obs = append(obs, x)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.Groups = validity.Compute(obs, o)
	return rep, nil
}

// observe makes an execution's observation, if it has a verdict.
func observe(s *record.Scored, l *reward.Label, latest map[[2]string]*evals.Evidence) (validity.Observation, bool) {
	x := validity.Observation{Rubric: s.Result.RubricVersion, Signals: map[string]float64{}}
	// own is the signal that is the verdict itself, left out of the
	// observation: a label's always, the person's verdict's when that is
	// the verdict measured against.
	own := fitness.SignalLabel
	switch e := latest[[2]string{s.SkillKey, s.Version}]; {
	case l != nil:
		x.Source, x.Success = validity.SourceLabel, l.Outcome == reward.Success
		if l.Source != "" {
			x.Source = l.Source // an imported label ("insights")
		}
	case len(s.Exec.Verdicts) > 0:
		// The person's last word on the answer: a correction, or an
		// acceptance (after a repair, the repaired answer's).
		last := s.Exec.Verdicts[len(s.Exec.Verdicts)-1]
		x.Source, x.Success = validity.SourcePerson, last.Verdict == execution.VerdictAcceptance
		own = fitness.SignalVerdict
	case s.Result.Errors.Corrections > 0:
		x.Source, x.Success = validity.SourcePerson, false
		own = fitness.SignalVerdict
	case e != nil:
		x.Source, x.Success = validity.SourceEval, e.Passed()
	default:
		return x, false
	}
	var sum, w float64
	for _, sig := range s.Result.Signals {
		if !sig.Present || sig.Signal == fitness.SignalLabel || sig.Signal == own {
			continue
		}
		x.Signals[sig.Signal] = sig.SubScore
		sum += sig.SubScore * sig.Weight
		w += sig.Weight
	}
	if w == 0 {
		return x, false
	}
	// To the 2 decimals scores are given with, so equal scores tie.
	x.Total = math.Round(10000*sum/w) / 100
	return x, true
}
