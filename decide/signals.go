package decide

import (
	"math"
	"slices"
	"sort"
)

// SignalMean is a version's mean of one fitness signal over its scored
// runs: SubScore over the runs where the signal was present (0-1), Points
// its mean contribution to the score (absent counts 0), so that a
// version's Points sum to its mean score.
type SignalMean struct {
	Signal   string  `json:"signal"`
	Present  int     `json:"present"`
	SubScore float64 `json:"sub_score"`
	Points   float64 `json:"points"`
	// Weight is the signal's mean effective weight (0-1) over the runs
	// where it was present: an optional signal present on a run lowers
	// every other signal's weight there, so the same sub-score is worth
	// fewer points on a version whose runs had more optional evidence.
	Weight float64 `json:"weight,omitempty"`
	// Optional marks a signal present on some runs only (a label, checks,
	// a verdict: fitness.IsOptional), which a version that never had it
	// is not charged for.
	Optional bool `json:"-"`
}

// SignalDiff is one signal's difference between candidate and baseline:
// Delta in the signal's own 0-1 measure, Points in score points: Delta
// at the signal's weight, the mean of its weights on the two versions,
// so that Points always has Delta's sign. Differences of weight are left
// out: an optional signal (a verdict, checks, a label) present on more of
// one version's runs lowers the others' weights there, and charging that
// to, say, efficiency printed "efficiency +0.01 = −1.3 pts". The Points
// therefore sum to the difference of the versions' mean scores only when
// the weights agree.
type SignalDiff struct {
	Signal    string  `json:"signal"`
	Baseline  float64 `json:"baseline"`
	Candidate float64 `json:"candidate"`
	Delta     float64 `json:"delta"`
	Points    float64 `json:"points"`
	// BaselineRuns and CandidateRuns count the runs where an optional
	// signal (verdict, checks, label) was present: it is absent from the others.
	BaselineRuns  int `json:"baseline_runs,omitempty"`
	CandidateRuns int `json:"candidate_runs,omitempty"`
}

// SignalDiffs pairs two versions' signal means, largest effect first.
func SignalDiffs(base, cand []SignalMean) []SignalDiff {
	bm := map[string]SignalMean{}
	for _, s := range base {
		bm[s.Signal] = s
	}
	cands := append([]SignalMean(nil), cand...)
	for _, b := range base {
		if !slices.ContainsFunc(cand, func(c SignalMean) bool { return c.Signal == b.Signal }) {
			cands = append(cands, SignalMean{Signal: b.Signal, Optional: b.Optional})
		}
	}
	var out []SignalDiff
	for _, c := range cands {
		b := bm[c.Signal]
		if b.Present == 0 && c.Present == 0 {
			continue
		}
		optional := c.Optional || b.Optional
		// An optional signal (a label, checks, a verdict) that one version
		// never had is left out: a version never labelled is not charged
		// the label its baseline had (issue 36 item 3).
		// One the candidate alone has stays as evidence, worth no points
		// ("label 0.00 (8 runs) vs none"): labelled failures are what
		// turned a decision, and the words say so.
		if optional && c.Present == 0 {
			continue
		}
		d := SignalDiff{Signal: c.Signal, Baseline: round4(b.SubScore), Candidate: round4(c.SubScore),
			Delta: round4(c.SubScore - b.SubScore), Points: round2(c.Points - b.Points)}
		if b.Weight > 0 && c.Weight > 0 {
			// One weight for both sides: the points follow the signal.
			d.Points = round2((c.SubScore - b.SubScore) * 100 * (b.Weight + c.Weight) / 2)
		}
		if optional && b.Present == 0 {
			d.Baseline, d.Delta, d.Points = 0, 0, 0
		}
		if optional {
			d.BaselineRuns, d.CandidateRuns = b.Present, c.Present
		}
		out = append(out, d)
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Points) > math.Abs(out[j].Points) })
	return out
}
