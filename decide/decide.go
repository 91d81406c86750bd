// Package decide says whether a new version of a prompt is better than
// the one it would replace: two samples of scores in, a decision out
// (accept, reject or undecided, with its numbers). It is pure and says
// nothing in words: package render/words writes a decision's sentences,
// and package mutation acts on it. docs/decisions.md documents the
// methods and the simulation behind the default.
package decide

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
)

// Method names a decision method.
type Method string

// Decision methods.
const (
	// MethodSepa is the seed's should_apply_mutation on the two aggregates:
	// cheap, immediate, and close to a coin toss under realistic noise.
	MethodSepa Method = "sepa"
	// MethodSequential is an always-valid sequential test on the difference
	// of the versions' mean scores: it may be re-run after every execution
	// without inflating its error rates.
	MethodSequential Method = "sequential"
)

// Outcomes of a decision.
const (
	Accept    = "accept"
	Reject    = "reject"
	Undecided = "undecided"
)

// Reasons: the seed's words, and the sequential method's.
const (
	ReasonSignificant = "significant_improvement"
	ReasonMarginal    = "marginal_improvement"
	ReasonExploration = "exploration"
	ReasonRegression  = "regression"
	// ReasonBetter: the sequential method found the candidate better with
	// the configured confidence.
	ReasonBetter = "better_with_confidence"
	// ReasonWorse: the sequential method found the candidate worse with the
	// configured confidence.
	ReasonWorse = "worse_with_confidence"
	// ReasonUndecided: no decision yet; NeededMore estimates how long.
	ReasonUndecided = "undecided"
	// ReasonNoEvidence: max_samples reached without a difference: the
	// baseline stays (the outcome is reject) unless exploration keeps it.
	ReasonNoEvidence = "undecided_at_max_samples"
	// ReasonTooFew: a version has fewer than min_samples scored executions.
	ReasonTooFew = "insufficient_samples"
	// ReasonThinBaseline: the baseline has fewer than two scored
	// executions, too few to compare with; the candidate is settled at
	// max_samples (ReasonSettled).
	ReasonThinBaseline = "baseline_too_thin"
	// ReasonModelsDiffer: the versions' runs were answered by different
	// models, none with runs of both: not compared yet (models.go).
	ReasonModelsDiffer = "models_differ"
	// ReasonModelsSettled: the candidate reached max_samples without a
	// model in common with the baseline: it becomes the baseline, with
	// no claim that it is better.
	ReasonModelsSettled = "settled_models_differ"
	// ReasonSettled: the candidate reached max_samples against a baseline
	// too thin to compare with: it becomes the baseline, so that a skill
	// is never undecided for ever.
	ReasonSettled = "settled_at_max_samples"
)

// Options configure decisions.
type Options struct {
	Method Method
	// MinSamples scored executions of each version before any decision.
	MinSamples int
	// MaxSamples per version: the sequential method's final look is when
	// the candidate has this many.
	MaxSamples int
	// Confidence is 1 - α: the chance that a candidate that is not better
	// is accepted as an improvement is at most α, and likewise for
	// rejecting one that is not worse.
	Confidence float64
	// Exploration is the probability of keeping a candidate that is not
	// clearly worse (observed Δ > -3) when the evidence runs out.
	Exploration float64
	// SDFloor is the smallest per-execution standard deviation the
	// sequential method assumes: a few identical scores must not make a
	// version look infinitely certain.
	SDFloor float64
}

// DefaultOptions are the configuration defaults: the sequential method
// (docs/decisions.md explains why).
func DefaultOptions() Options {
	return Options{Method: MethodSequential, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2, SDFloor: 1}
}

// Sample summarises one version's scored executions.
type Sample struct {
	Hash      string  `json:"hash"`
	Seq       int     `json:"seq,omitempty"`
	N         int     `json:"n"`
	Aggregate float64 `json:"aggregate"`
	Mean      float64 `json:"mean"`
	SD        float64 `json:"sd"`
	// FailRate is the share of the version's tool calls that failed.
	FailRate float64 `json:"fail_rate"`
	// OverClaims counts the version's runs (of N) whose final answer
	// claimed more than their tool calls showed (package integrity;
	// never part of the score).
	OverClaims int `json:"over_claims,omitempty"`
	// Scores are the version's scores, newest first. The sequential method
	// uses them (when empty it falls back to N, Mean and SD); they are not
	// recorded with a decision.
	Scores []float64 `json:"-"`
	// Models name the model that answered each of Scores (execution.Usage.Model; ""
	// unknown), in the same order; nil when none is known. With models
	// on both sides the sequential method compares runs of the same
	// model only (models.go).
	Models []string `json:"-"`
	// Omitted is how many scores are left out of Scores, between its
	// newest and its oldest (the engine keeps at most max_samples of each
	// end, all the method reads); N counts them.
	Omitted int `json:"-"`
	// Signals are the version's mean fitness signals (package mutation sums them).
	Signals []SignalMean `json:"signals,omitempty"`
}

// Look is the sequential method's state at one decision, for the record.
type Look struct {
	// BaseN and CandN are the scores compared: the baseline's newest and
	// the candidate's oldest, at most max_samples each.
	BaseN int `json:"base_n"`
	CandN int `json:"cand_n"`
	// Info is the information fraction t in (0, 1]: the effective sample
	// size n_b·n_c/(n_b+n_c) over its value at max_samples each.
	Info float64 `json:"info"`
	// Z is the unpooled (Welch) statistic, mapped to the normal scale.
	Z float64 `json:"z"`
	// Bound is the boundary Z had to reach to accept at this look;
	// RejectBound the one -Z had to reach to reject (a flat line, lower
	// than the accept bound until the last looks: harm is undone on less
	// evidence than a gain is believed on).
	Bound       float64 `json:"bound"`
	RejectBound float64 `json:"reject_bound"`
	// Final is true at the last look (the candidate has max_samples).
	Final bool `json:"final"`
	// DF are the degrees of freedom of the t to z mapping.
	DF float64 `json:"df"`
}

// Decision is the outcome of comparing a candidate with the baseline, with
// everything needed to audit it. Decide fills in the numbers; Words, Rule,
// Explanation and Detail are the sentences package render/words writes
// from them, recorded with the decision.
type Decision struct {
	Method  Method `json:"method"`
	Outcome string `json:"outcome"`
	Reason  string `json:"reason"`
	Words   string `json:"words"`
	// Delta is candidate minus baseline: aggregates for sepa, means for
	// sequential.
	Delta float64 `json:"delta"`
	// ProbBetter estimates P(candidate better): Φ(Δ/SE), the posterior
	// probability under a flat prior. It is for reading, not for deciding.
	ProbBetter float64 `json:"prob_better"`
	// Interval bounds the true difference: for sequential an always-valid
	// (repeated) interval, each side at the configured confidence; for
	// sepa a plain one-look interval at the same confidence.
	Interval [2]float64 `json:"interval"`
	// Draw is the exploration draw, when one was made.
	Draw *float64 `json:"draw,omitempty"`
	// NeededMore estimates the candidate's executions still needed.
	NeededMore int `json:"needed_more,omitempty"`
	// ThinBaseline: the baseline had fewer than min_samples scored
	// executions (accepted by hand early); it was judged on what it had.
	ThinBaseline bool `json:"thin_baseline,omitempty"`
	// BaselineMean and CandidateMean are the means compared (aggregates
	// for sepa), over BaselineN and CandidateN runs.
	BaselineMean  float64 `json:"baseline_mean"`
	CandidateMean float64 `json:"candidate_mean"`
	BaselineN     int     `json:"baseline_n"`
	CandidateN    int     `json:"candidate_n"`
	// Rule is the rule applied and its threshold, in words.
	Rule string `json:"rule"`
	// Signals are the per-signal differences, largest effect first.
	Signals []SignalDiff `json:"signals,omitempty"`
	// Strata are the models the runs were answered by, when both
	// versions' runs name them: the compared ones first (models.go).
	Strata []Stratum `json:"strata,omitempty"`
	// Explanation is the decision for a person (also the start of Words):
	// verdict, means, n, difference and interval in points, rule, runs
	// still needed, signals. Detail is the test's own account (z, bounds).
	Explanation string    `json:"explanation"`
	Detail      string    `json:"detail,omitempty"`
	Look        *Look     `json:"look,omitempty"`
	Baseline    Sample    `json:"baseline"`
	Candidate   Sample    `json:"candidate"`
	Options     OptionsAt `json:"options"`
}

// OptionsAt are the options a decision was made with, recorded with it.
type OptionsAt struct {
	MinSamples  int     `json:"min_samples"`
	MaxSamples  int     `json:"max_samples"`
	Confidence  float64 `json:"confidence"`
	Exploration float64 `json:"exploration"`
}

// Decide compares candidate cand (hash candHash) with baseline base (hash
// baseHash) for the skill skillKey. It is pure: the exploration draw comes
// from a PRNG seeded by the skill and the two hashes, so replaying the same
// executions makes the same decision.
func Decide(skillKey, baseHash, candHash string, base, cand Sample, o Options) Decision {
	o = o.normalised()
	base.Hash, cand.Hash = baseHash, candHash
	base.Scores, base.Models = finite(base.Scores, base.Models)
	cand.Scores, cand.Models = finite(cand.Scores, cand.Models)
	if len(base.Scores) > 0 {
		base.N = len(base.Scores) + base.Omitted
	}
	if len(cand.Scores) > 0 {
		cand.N = len(cand.Scores) + cand.Omitted
	}
	d := Decision{Method: o.Method, Baseline: base, Candidate: cand,
		Options:      OptionsAt{o.MinSamples, o.MaxSamples, o.Confidence, o.Exploration},
		BaselineMean: round2(base.Mean), CandidateMean: round2(cand.Mean), BaselineN: base.N, CandidateN: cand.N,
		Signals: SignalDiffs(base.Signals, cand.Signals)}
	switch {
	case cand.N < o.MinSamples:
		d.Outcome, d.Reason = Undecided, ReasonTooFew
		d.NeededMore = max(o.MinSamples-cand.N, 0)
		return d
	case base.N < 2 && cand.N >= o.MaxSamples:
		// The baseline stopped running when the candidate replaced it:
		// it will never have the runs to compare with.
		d.Outcome, d.Reason, d.ThinBaseline = Accept, ReasonSettled, true
		d.Delta = round2(cand.Mean - base.Mean)
		return d
	case base.N < 2:
		d.Outcome, d.Reason, d.ThinBaseline = Undecided, ReasonThinBaseline, true
		d.NeededMore = o.MaxSamples - cand.N
		return d
	}
	if o.Method == MethodSepa {
		d = decideSepa(skillKey, d, o)
		d.BaselineMean, d.CandidateMean = round2(base.Aggregate), round2(cand.Aggregate)
	} else {
		d = decideSequential(skillKey, d, o)
	}
	if base.N < o.MinSamples {
		// A baseline accepted by hand on few runs stops running when a
		// candidate replaces it: judge against what it has, never wait.
		d.ThinBaseline = true
	}
	return d
}

// normalised fills unset or out-of-range options with the defaults, so a
// zero Options is usable and a bad one never panics.
func (o Options) normalised() Options {
	def := DefaultOptions()
	if o.Method != MethodSepa && o.Method != MethodSequential {
		o.Method = def.Method
	}
	if o.MinSamples < 2 {
		o.MinSamples = 2 // a spread needs two scores
	}
	if o.MaxSamples < o.MinSamples {
		o.MaxSamples = max(def.MaxSamples, o.MinSamples)
	}
	if !(o.Confidence > 0.5 && o.Confidence < 1) {
		o.Confidence = def.Confidence
	}
	if !(o.Exploration >= 0 && o.Exploration <= 1) {
		o.Exploration = def.Exploration
	}
	if !(o.SDFloor > 0) {
		o.SDFloor = def.SDFloor
	}
	return o
}

// ExplorationDraw returns the reproducible exploration draw in [0,1) for a
// skill and a pair of versions: PCG seeded by sha256(skill, base, cand).
func ExplorationDraw(skillKey, baseHash, candHash string) float64 {
	h := sha256.Sum256([]byte(skillKey + "\x00" + baseHash + "\x00" + candHash))
	r := rand.New(rand.NewPCG(binary.BigEndian.Uint64(h[:8]), binary.BigEndian.Uint64(h[8:16])))
	return r.Float64()
}

func decideSepa(skillKey string, d Decision, o Options) Decision {
	b, c := d.Baseline, d.Candidate
	// The seed's rule compares aggregates over all runs; it only waits
	// when no model has runs of both versions (models.go).
	if ss := stratify(b.Scores, b.Models, c.Scores, c.Models); ss != nil {
		d.Strata = strataOf(ss)
		if _, ok := stratified(ss, o); !ok {
			return modelsDiffer(d, o, c.N)
		}
	}
	d.Delta = round2(c.Aggregate - b.Aggregate)
	sb, sc := math.Max(b.SD, o.SDFloor), math.Max(c.SD, o.SDFloor)
	se := math.Sqrt(sb*sb/float64(b.N) + sc*sc/float64(c.N))
	d.ProbBetter = round4(normCDF(d.Delta / se))
	half := normQuantile(o.Confidence) * se
	d.Interval = [2]float64{round2(d.Delta - half), round2(d.Delta + half)}
	switch {
	case d.Delta > 5:
		d.Outcome, d.Reason = Accept, ReasonSignificant
	case d.Delta > 0:
		d.Outcome, d.Reason = Accept, ReasonMarginal
	case d.Delta > -3:
		x := ExplorationDraw(skillKey, b.Hash, c.Hash)
		d.Draw = &x
		d.Reason = ReasonExploration
		d.Outcome = Reject
		if x < o.Exploration {
			d.Outcome = Accept
		}
	default:
		d.Outcome, d.Reason = Reject, ReasonRegression
	}
	return d
}

// newest returns the newest n of newest-first scores.
func newest[T any](newestFirst []T, n int) []T {
	if n >= len(newestFirst) {
		return newestFirst
	}
	return newestFirst[:n]
}

// oldest returns the oldest n of newest-first scores.
func oldest[T any](newestFirst []T, n int) []T {
	if n >= len(newestFirst) {
		return newestFirst
	}
	return newestFirst[len(newestFirst)-n:]
}

// finite drops NaN and infinite scores (a broken score is no evidence),
// and their models with them when models names one per score (else nil).
func finite(xs []float64, models []string) ([]float64, []string) {
	if len(models) != len(xs) {
		models = nil
	}
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) }
	if !slices.ContainsFunc(xs, bad) {
		return xs, models
	}
	var out []float64
	var ms []string
	for i, x := range xs {
		if bad(x) {
			continue
		}
		out = append(out, x)
		if models != nil {
			ms = append(ms, models[i])
		}
	}
	return out, ms
}
