package evals

import (
	"fmt"
	"slices"
	"strings"
)

// Gate is mutation.eval_gate: what a candidate's eval suite must show
// before the candidate is written (docs/claude-code.md, "The eval gate").
type Gate struct {
	// Threshold is the score each case must reach (0 to 1); nil keeps
	// the suite's own threshold (claude plugin eval's --threshold, 1 by
	// default).
	Threshold *float64
	// MaxDrop is how far the candidate's overall score may fall below
	// the baseline's recorded one; nil does not compare with the
	// baseline.
	MaxDrop *float64
}

// Verdict is the gate's decision on one candidate, with its numbers.
type Verdict struct {
	// Held: the candidate passed and may be written.
	Held bool `json:"held"`
	// Candidate and Baseline are the content hashes compared.
	Candidate string  `json:"candidate"`
	Baseline  string  `json:"baseline,omitempty"`
	Score     float64 `json:"score"`
	// Threshold is the per-case threshold applied.
	Threshold float64 `json:"threshold"`
	Cases     int     `json:"cases"`
	Runs      int     `json:"runs"`
	CostUSD   float64 `json:"cost_usd"`
	// BaselineScore is the baseline's recorded score (nil when none is
	// recorded or MaxDrop is not set); MaxDrop the allowed drop.
	BaselineScore *float64 `json:"baseline_score,omitempty"`
	MaxDrop       *float64 `json:"max_drop,omitempty"`
	// Failing names the cases below the threshold; Fell the cases whose
	// score is lower than the baseline's when the drop is too large.
	Failing []string `json:"failing,omitempty"`
	Fell    []string `json:"fell,omitempty"`
	// Words says it in a sentence, e.g. "eval gate held: 1.00 over 2
	// cases × 1 run, every case at least 1.00; baseline 1.00, drop 0.00
	// (allowed 0.10)".
	Words string `json:"words"`
}

// Judge decides whether a candidate's suite run cand passes the gate;
// base is the baseline's recorded run (nil when there is none). A run cut
// short, or one with no case, is refused: it shows nothing.
func Judge(cand, base *Evidence, g Gate) Verdict {
	v := Verdict{Candidate: cand.Version, Score: cand.Score, Threshold: cand.Threshold, Cases: len(cand.Cases), Runs: cand.Runs, CostUSD: cand.CostUSD, MaxDrop: g.MaxDrop}
	if base != nil {
		v.Baseline = base.Version
	}
	if g.Threshold != nil {
		v.Threshold = *g.Threshold
	}
	figures := fmt.Sprintf("%.2f over %d case%s × %d run%s", cand.Score, len(cand.Cases), plural(len(cand.Cases)), cand.Runs, plural(cand.Runs))
	if cand.Partial || len(cand.Cases) == 0 {
		reason := "it has no case"
		if cand.Partial {
			reason = "it stopped early (" + orNone(cand.PartialReason) + ")"
		}
		v.Words = fmt.Sprintf("refused by eval gate: the candidate's suite run shows nothing, %s", reason)
		return v
	}
	for _, c := range cand.Cases {
		if c.Score < v.Threshold-1e-9 {
			v.Failing = append(v.Failing, fmt.Sprintf("%s (%.2f)", c.Name, c.Score))
		}
	}
	var drop string
	dropped := false
	if g.MaxDrop != nil && base != nil {
		bs := base.Score
		v.BaselineScore = &bs
		d := bs - cand.Score
		drop = fmt.Sprintf("; baseline %.2f, drop %.2f (allowed %.2f)", bs, max(d, 0), *g.MaxDrop)
		if d > *g.MaxDrop+1e-9 {
			dropped = true
			was := map[string]float64{}
			for _, c := range base.Cases {
				was[c.Name] = c.Score
			}
			for _, c := range cand.Cases {
				if b, ok := was[c.Name]; ok && c.Score < b-1e-9 {
					v.Fell = append(v.Fell, fmt.Sprintf("%s (%.2f → %.2f)", c.Name, b, c.Score))
				}
			}
		}
	} else if g.MaxDrop != nil {
		drop = "; no recorded score of the baseline to compare with"
	}
	switch {
	case len(v.Failing) > 0 && dropped:
		v.Words = fmt.Sprintf("refused by eval gate: %s below the threshold %.2f, and the score %s fell more than allowed%s%s",
			cases(v.Failing), v.Threshold, figures, drop, fellWords(v.Fell))
	case len(v.Failing) > 0:
		v.Words = fmt.Sprintf("refused by eval gate: %s below the threshold %.2f (score %s%s)", cases(v.Failing), v.Threshold, figures, drop)
	case dropped:
		v.Words = fmt.Sprintf("refused by eval gate: the score %s fell more than allowed%s%s", figures, drop, fellWords(v.Fell))
	default:
		v.Held = true
		v.Words = fmt.Sprintf("eval gate held: %s, every case at least %.2f%s", figures, v.Threshold, drop)
	}
	return v
}

func cases(names []string) string {
	if len(names) == 1 {
		return "case " + names[0] + " is"
	}
	return "cases " + strings.Join(names, ", ") + " are"
}

func fellWords(fell []string) string {
	if len(fell) == 0 {
		return ""
	}
	return "; fell: " + strings.Join(fell, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "no reason given"
	}
	return s
}

// Only is the evidence of the named cases alone, in e's order, its score
// and pass rate the mean of theirs (the figures of a gate that ran part
// of a suite, compared like for like with a baseline's whole run); ok is
// false when a named case is not in e.
func (e *Evidence) Only(names []string) (out *Evidence, ok bool) {
	o := *e
	o.Cases, o.Score, o.PassRate, o.Delta, o.Runs = nil, 0, 0, nil, 0
	for _, c := range e.Cases {
		if slices.Contains(names, c.Name) {
			o.Cases = append(o.Cases, c)
			o.Score += c.Score
			o.PassRate += c.PassRate
			o.Runs = max(o.Runs, c.Runs)
		}
	}
	if n := len(o.Cases); n > 0 {
		o.Score /= float64(n)
		o.PassRate /= float64(n)
	}
	if o.Runs == 0 {
		o.Runs = e.Runs
	}
	return &o, len(o.Cases) == len(names)
}
