// Package validity measures whether sepad's score follows success: for
// each signal of the rubric and for the total, its agreement with the
// verdicts sepad holds on the same executions (a person's or a model's
// labels, the person's correction or acceptance in the next prompt, eval
// verdicts on the same version), as an AUC —
// the chance that a run judged a success scores above one judged a
// failure — with n and a plain verdict. It is pure: the caller
// (package query) gathers the observations from the store.
package validity

import (
	"fmt"
	"math"
	"sort"
)

// Sources of a verdict, in order of precedence (an execution counts once,
// with the first it has).
const (
	SourceLabel  = "label"  // sepad label, POST .../label (a person or a model); an imported label counts as its own source ("insights")
	SourcePerson = "person" // the person corrected (a failure) or accepted (a success) the answer in the next prompt
	SourceEval   = "eval"   // the version's latest Claude Code eval suite passed or failed
)

// Total is the row of the whole score (without the signal that is the
// verdict itself: the label, or the person's verdict).
const Total = "total"

// DefaultMinLabels is the fewest verdicts, with at least DefaultMinEach
// of each outcome, under which a row says "not enough labels".
const (
	DefaultMinLabels = 10
	DefaultMinEach   = 3
)

// Observation is one execution with a verdict.
type Observation struct {
	// Rubric is the rubric version the execution was scored under.
	Rubric string
	// Signals are the sub-scores (0-1) of its present signals, by name.
	Signals map[string]float64
	// Total is its score (0-100) without the signal that is its verdict.
	Total float64
	// Success is the verdict; Source where it came from.
	Success bool
	Source  string
}

// Row is one signal's agreement with the verdicts.
type Row struct {
	Signal string `json:"signal"`
	// N counts the verdicts of executions where the signal was present;
	// Successes and Failures split it.
	N         int `json:"n"`
	Successes int `json:"successes"`
	Failures  int `json:"failures"`
	// AUC is the chance that a success's value is above a failure's
	// (ties count half): 0.5 says nothing, 1 separates them perfectly, 0
	// ranks them backwards. Null when either outcome is missing.
	AUC *float64 `json:"auc"`
	// SE is the AUC's standard error (Hanley and McNeil, 1982).
	SE *float64 `json:"se,omitempty"`
	// MeanSuccess and MeanFailure are the signal's mean over each outcome
	// (sub-scores 0-1; points 0-100 for the total).
	MeanSuccess *float64 `json:"mean_success"`
	MeanFailure *float64 `json:"mean_failure"`
	// Verdict says it in words.
	Verdict string `json:"verdict"`
}

// Group is the rows of one rubric version.
type Group struct {
	Rubric string `json:"rubric_version"`
	// N counts the executions with a verdict; Sources by source.
	N       int            `json:"n"`
	Sources map[string]int `json:"sources"`
	Rows    []Row          `json:"rows"`
}

// Report is GET /v1/validity and `sepad validity --json`.
type Report struct {
	// Skill is the skill measured ("" for every skill together).
	Skill string `json:"skill,omitempty"`
	// Current is the rubric version sepad scores with now.
	Current   string  `json:"current_rubric_version"`
	MinLabels int     `json:"min_labels"`
	MinEach   int     `json:"min_each"`
	Groups    []Group `json:"groups"`
}

// Options bound the verdicts.
type Options struct {
	// MinLabels and MinEach: fewer verdicts (or fewer of either outcome)
	// give "not enough labels" (defaults DefaultMinLabels, DefaultMinEach).
	MinLabels, MinEach int
}

func (o Options) withDefaults() Options {
	if o.MinLabels <= 0 {
		o.MinLabels = DefaultMinLabels
	}
	if o.MinEach <= 0 {
		o.MinEach = DefaultMinEach
	}
	return o
}

// signalOrder is the rubric's order; other signals follow by name, the
// total last.
var signalOrder = map[string]int{
	"tool_success_rate": 0, "output_quality": 1, "efficiency": 2, "error_rate": 3, "structure_score": 4,
	"checks": 5, "outcome": 6, "verdict": 7,
}

// Compute groups the observations by rubric version (newest name last by
// string order) and measures every signal and the total in each.
func Compute(obs []Observation, o Options) []Group {
	o = o.withDefaults()
	by := map[string][]Observation{}
	for _, x := range obs {
		by[x.Rubric] = append(by[x.Rubric], x)
	}
	rubrics := make([]string, 0, len(by))
	for r := range by {
		rubrics = append(rubrics, r)
	}
	sort.Strings(rubrics)
	out := make([]Group, 0, len(rubrics))
	for _, r := range rubrics {
		out = append(out, group(r, by[r], o))
	}
	return out
}

func group(rubric string, obs []Observation, o Options) Group {
	g := Group{Rubric: rubric, N: len(obs), Sources: map[string]int{}}
	names := map[string]bool{}
	for _, x := range obs {
		g.Sources[x.Source]++
		for s := range x.Signals {
			names[s] = true
		}
	}
	sigs := make([]string, 0, len(names))
	for s := range names {
		sigs = append(sigs, s)
	}
	sort.Slice(sigs, func(i, j int) bool {
		oi, iok := signalOrder[sigs[i]]
		oj, jok := signalOrder[sigs[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return sigs[i] < sigs[j]
	})
	for _, s := range sigs {
		var pos, neg []float64
		for _, x := range obs {
			v, ok := x.Signals[s]
			if !ok {
				continue
			}
			if x.Success {
				pos = append(pos, v)
			} else {
				neg = append(neg, v)
			}
		}
		g.Rows = append(g.Rows, row(s, pos, neg, o))
	}
	var pos, neg []float64
	for _, x := range obs {
		if x.Success {
			pos = append(pos, x.Total)
		} else {
			neg = append(neg, x.Total)
		}
	}
	g.Rows = append(g.Rows, row(Total, pos, neg, o))
	return g
}

func row(signal string, pos, neg []float64, o Options) Row {
	r := Row{Signal: signal, N: len(pos) + len(neg), Successes: len(pos), Failures: len(neg)}
	if len(pos) > 0 {
		m := mean(pos)
		r.MeanSuccess = &m
	}
	if len(neg) > 0 {
		m := mean(neg)
		r.MeanFailure = &m
	}
	if len(pos) > 0 && len(neg) > 0 {
		a := AUC(pos, neg)
		se := HanleyMcNeilSE(a, len(pos), len(neg))
		r.AUC, r.SE = &a, &se
	}
	r.Verdict = Verdict(signal, r, o)
	return r
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// AUC is the Mann-Whitney estimate of P(a success's value > a failure's),
// ties counting half; NaN when either side is empty. O((m+n) log(m+n)).
func AUC(pos, neg []float64) float64 {
	if len(pos) == 0 || len(neg) == 0 {
		return math.NaN()
	}
	type v struct {
		x   float64
		pos bool
	}
	all := make([]v, 0, len(pos)+len(neg))
	for _, x := range pos {
		all = append(all, v{x, true})
	}
	for _, x := range neg {
		all = append(all, v{x, false})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].x < all[j].x })
	// Sum of the successes' mid-ranks (1-based).
	rankSum := 0.0
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		mid := float64(i+j+1) / 2 // mean of ranks i+1 … j
		for k := i; k < j; k++ {
			if all[k].pos {
				rankSum += mid
			}
		}
		i = j
	}
	m, n := float64(len(pos)), float64(len(neg))
	return (rankSum - m*(m+1)/2) / (m * n)
}

// HanleyMcNeilSE is the standard error of an AUC a measured on m
// successes and n failures (Hanley and McNeil, 1982).
func HanleyMcNeilSE(a float64, m, n int) float64 {
	q1 := a / (2 - a)
	q2 := 2 * a * a / (1 + a)
	fm, fn := float64(m), float64(n)
	v := (a*(1-a) + (fm-1)*(q1-a*a) + (fn-1)*(q2-a*a)) / (fm * fn)
	if v < 0 {
		return 0
	}
	return math.Sqrt(v)
}

// count is "1 success", "2 successes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// plain names the signals in the verdicts, as explain does (the error
// rate's row is its sub-score, one minus the rate: "error-free").
var plain = map[string]string{
	"tool_success_rate": "tool success",
	"output_quality":    "output quality",
	"efficiency":        "efficiency",
	"error_rate":        "error-free",
	"structure_score":   "structure",
	"checks":            "the skill's checks",
	"outcome":           "the outcome",
	"verdict":           "the person's verdict",
	Total:               "the score",
}

// Plain is a signal's name in words.
func Plain(signal string) string {
	if p, ok := plain[signal]; ok {
		return p
	}
	return signal
}

// Verdict words a row: "not enough labels" under the minimums, else how
// far the AUC is from 0.5, and whether 0.5 is within about two standard
// errors ("… may say nothing").
func Verdict(signal string, r Row, o Options) string {
	o = o.withDefaults()
	name := Plain(signal)
	if r.AUC == nil || r.N < o.MinLabels || r.Successes < o.MinEach || r.Failures < o.MinEach {
		return fmt.Sprintf("not enough labels (%d: %s, %s; need %d with %d of each)", r.N, count(r.Successes, "success", "successes"), count(r.Failures, "failure", "failures"), o.MinLabels, o.MinEach)
	}
	a := *r.AUC
	d := math.Abs(a - 0.5)
	var s string
	switch {
	case d < 0.1:
		return name + " says nothing about success here"
	case a >= 0.8:
		s = name + " follows success closely"
	case a >= 0.7:
		s = name + " follows success"
	case a > 0.5:
		s = name + " follows success weakly"
	case a <= 0.2:
		s = name + " runs against success: failures score higher"
	case a <= 0.3:
		s = name + " runs against success"
	default:
		s = name + " runs weakly against success"
	}
	if r.SE != nil && d < 2**r.SE {
		s += " (too few labels to be sure)"
	}
	return s
}
