package activation

import (
	"fmt"
	"math"

	"github.com/sepad/sepad/decide"
)

// Verdicts of a comparison of two descriptions on activation.
const (
	Better = "better"
	Worse  = "worse"
	// Undecided: not enough chances yet, or no difference shown.
	Undecided = "undecided"
)

// Comparison judges a description edit on activation alone: the model's
// share of the chances under the new description (the candidate) against
// the description before it (the baseline), with the statistics of
// decisions (package decide's sequential test, on each chance scored 100
// when the model picked the skill and 0 when the person had to type it
// after a turn without it). It is reported beside the fitness decision,
// never mixed into the score.
type Comparison struct {
	// Baseline and Candidate are the first version numbers of the two
	// descriptions.
	Baseline  int `json:"baseline"`
	Candidate int `json:"candidate"`
	// BaselineRate and CandidateRate are the model's shares (0-1) over
	// BaselineN and CandidateN chances.
	BaselineRate  float64 `json:"baseline_rate"`
	CandidateRate float64 `json:"candidate_rate"`
	BaselineN     int     `json:"baseline_n"`
	CandidateN    int     `json:"candidate_n"`
	// Verdict is Better, Worse or Undecided; Reason decide's reason.
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// Delta and Interval are in percentage points of the share.
	Delta    float64    `json:"delta"`
	Interval [2]float64 `json:"interval"`
	// NeededMore estimates the chances still needed, when undecided.
	NeededMore int    `json:"needed_more,omitempty"`
	Words      string `json:"words"`
}

// Compare compares the description of cand with that of base (two groups
// of one skill, base the older) on activation.
func Compare(skillKey string, base, cand Group, o decide.Options) Comparison {
	c := Comparison{Baseline: base.From, Candidate: cand.From, BaselineN: base.Chances(), CandidateN: cand.Chances()}
	c.BaselineRate, _ = base.Rate()
	c.CandidateRate, _ = cand.Rate()
	o.Method = decide.MethodSequential
	o.Exploration = 0 // nothing is kept on a draw here: it is a report
	d := decide.Decide(skillKey, fmt.Sprintf("description of v%d", base.From), fmt.Sprintf("description of v%d", cand.From),
		sample(base.Counts), sample(cand.Counts), o)
	c.Reason, c.Delta, c.Interval = d.Reason, d.Delta, d.Interval
	switch d.Reason {
	case decide.ReasonBetter:
		c.Verdict = Better
	case decide.ReasonWorse:
		c.Verdict = Worse
	default:
		c.Verdict, c.NeededMore = Undecided, d.NeededMore
	}
	c.Words = c.words(o)
	return c
}

// sample scores each chance: 100 when the model picked the skill, 0 when
// it was missed.
func sample(c Counts) decide.Sample {
	scores := make([]float64, 0, c.Chances())
	for i := 0; i < c.Claude; i++ {
		scores = append(scores, 100)
	}
	for i := 0; i < c.Missed; i++ {
		scores = append(scores, 0)
	}
	s := decide.Sample{N: len(scores), Scores: scores}
	if r, ok := c.Rate(); ok {
		s.Mean, s.Aggregate = 100*r, 100*r
		s.SD = 100 * math.Sqrt(r*(1-r))
	}
	return s
}

func (c Comparison) words(o decide.Options) string {
	shares := fmt.Sprintf("the model picked it %.0f%% of %s under the description of v%d, against %.0f%% of %s under v%d's",
		100*c.CandidateRate, chances(c.CandidateN), c.Candidate, 100*c.BaselineRate, chances(c.BaselineN), c.Baseline)
	switch c.Verdict {
	case Better:
		return fmt.Sprintf("the new description is picked more often (with %.0f%% confidence): %s", 100*o.Confidence, shares)
	case Worse:
		return fmt.Sprintf("the new description is picked less often (with %.0f%% confidence): %s", 100*o.Confidence, shares)
	}
	if c.Reason == decide.ReasonNoEvidence {
		return "no difference in activation shown: " + shares
	}
	if c.BaselineN < 2 || c.CandidateN < max(o.MinSamples, 1) {
		return fmt.Sprintf("activation not compared yet (%s and %s; %d of each are needed): %s",
			chances(c.CandidateN), chances(c.BaselineN), max(o.MinSamples, 2), shares)
	}
	s := "activation not decided yet: " + shares
	if c.NeededMore > 0 {
		s += fmt.Sprintf("; needs about %s more", chances(c.NeededMore))
	}
	return s
}

func chances(n int) string {
	if n == 1 {
		return "1 chance"
	}
	return fmt.Sprintf("%d chances", n)
}
