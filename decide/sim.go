package decide

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/sepad/sepad/aggregate"
)

// Scenario says how simulated executions arrive.
type Scenario struct {
	Name string
	// Noise is the per-execution standard deviation, in points.
	Noise float64
	// FrozenBase > 0: the baseline has this many executions when the
	// candidate appears and gets no more (the usual case: the old version
	// is no longer in the file). 0: both versions run in turn, and the
	// method looks after every single execution of either.
	FrozenBase int
	// FailShare of executions go badly and score 40 points lower (a skewed,
	// two-humped distribution, as real skills show).
	FailShare float64
	// ModelEffect > 0: runs answered by a second model score this many
	// points more. BaseOnSecond and CandOnSecond are the shares of the
	// baseline's and the candidate's runs it answers (a model switched
	// with the edit: the prompt's effect and the model's confounded).
	ModelEffect                float64
	BaseOnSecond, CandOnSecond float64
	// IgnoreModels hides the runs' models from Decide: the pooled
	// comparison sepad made before it compared runs of the same model.
	IgnoreModels bool
}

// SimRow is one line of a simulation table.
type SimRow struct {
	Method    Method
	Scenario  string
	TrueDelta float64
	// Shares of the evaluations that ended each way.
	Improvement float64 // accepted as an improvement
	Exploration float64 // accepted for exploration
	Rejected    float64 // rejected as a regression / worse with confidence
	KeptAtMax   float64 // max_samples reached without evidence, baseline kept
	Settled     float64 // no model in common: settled at max_samples, no claim made
	// MeanExecs is the mean number of candidate executions used.
	MeanExecs float64
}

// IssueScenario is the issue's simulation: noise 10, both versions run.
var IssueScenario = Scenario{Name: "alternating, sd 10", Noise: 10}

// Simulate evaluates a candidate against a baseline runs times, with
// scores drawn around 70 (baseline) and 70+delta (candidate), clamped to
// [0, 100] and rounded to hundredths as the rubric does. Each evaluation
// calls Decide after every execution, as the daemon does, until it
// decides; sepa therefore decides at min_samples. Seeded: the same
// arguments give the same row.
func Simulate(m Method, sc Scenario, delta float64, runs int, seed uint64, o Options) SimRow {
	o.Method = m
	o = o.normalised()
	h := sha256.Sum256([]byte(fmt.Sprintf("%s|%s|%g|%d", m, sc.Name, delta, seed)))
	r := rand.New(rand.NewPCG(seed, binary.BigEndian.Uint64(h[:8])))
	row := SimRow{Method: m, Scenario: sc.Name, TrueDelta: delta}
	ao := aggregate.DefaultOptions()
	score := func(mu, onSecond float64) (float64, string) {
		model := "first"
		if sc.ModelEffect != 0 && r.Float64() < onSecond {
			mu += sc.ModelEffect
			model = "second"
		}
		x := mu + r.NormFloat64()*sc.Noise
		if sc.FailShare > 0 && r.Float64() < sc.FailShare {
			x -= 40
		}
		return math.Round(math.Max(0, math.Min(100, x))*100) / 100, model
	}
	sample := func(newestFirst []float64, models []string) Sample {
		s := Sample{Scores: newestFirst, N: len(newestFirst)}
		if sc.ModelEffect != 0 && !sc.IgnoreModels {
			s.Models = models
		}
		if m == MethodSepa {
			a, _ := aggregate.Compute(newestFirst, ao)
			s.Aggregate, s.Mean, s.SD = a.Value, a.Mean, a.SD
		}
		return s
	}
	var execs float64
	for i := 0; i < runs; i++ {
		bh, ch := "b"+strconv.Itoa(i), "c"+strconv.Itoa(i)
		var b, c []float64 // newest first
		var bm, cm []string
		addB := func() {
			x, m := score(70, sc.BaseOnSecond)
			b, bm = append([]float64{x}, b...), append([]string{m}, bm...)
		}
		for j := 0; j < sc.FrozenBase; j++ {
			addB()
		}
		var d Decision
		for step := 0; ; step++ {
			if sc.FrozenBase == 0 && step%2 == 0 {
				addB()
			} else {
				x, m := score(70+delta, sc.CandOnSecond)
				c, cm = append([]float64{x}, c...), append([]string{m}, cm...)
			}
			if len(b) < o.MinSamples || len(c) < o.MinSamples {
				continue
			}
			d = Decide("sim", bh, ch, sample(b, bm), sample(c, cm), o)
			if d.Outcome != Undecided {
				break
			}
			if len(c) > 4*o.MaxSamples {
				break // cannot happen: the last look decides
			}
		}
		execs += float64(len(c))
		switch {
		case d.Reason == ReasonModelsSettled:
			row.Settled++
		case d.Outcome == Accept && d.Reason == ReasonExploration:
			row.Exploration++
		case d.Outcome == Accept:
			row.Improvement++
		case d.Reason == ReasonNoEvidence:
			row.KeptAtMax++
		default:
			row.Rejected++
		}
	}
	f := float64(runs)
	row.Improvement /= f
	row.Exploration /= f
	row.Rejected /= f
	row.KeptAtMax /= f
	row.Settled /= f
	row.MeanExecs = execs / f
	return row
}

// FixedSampleN is the executions per version a fixed-sample one-sided
// z-test at level 1-confidence needs for the given power against a true
// difference delta with per-execution noise sd.
func FixedSampleN(delta, sd, confidence, power float64) int {
	if delta <= 0 || power <= 0 {
		return 0
	}
	power = math.Min(power, 0.999)
	za, zb := normQuantile(confidence), normQuantile(power)
	return int(math.Ceil(2 * math.Pow((za+zb)*sd/delta, 2)))
}

// IssueDeltas are the true differences of the issue's table.
var IssueDeltas = []float64{-10, -5, -3, 0, 3, 5, 10}

// RobustnessScenarios stress the sequential method's assumptions.
var RobustnessScenarios = []Scenario{
	{Name: "frozen baseline of 20, sd 10", Noise: 10, FrozenBase: 20},
	{Name: "frozen baseline of 60, sd 10", Noise: 10, FrozenBase: 60},
	{Name: "alternating, sd 20", Noise: 20},
	{Name: "alternating, sd 10 + 15% failures at -40", Noise: 10, FailShare: 0.15},
}

// ModelScenarios are the issue's model switch (issue 37 item 3): no
// prompt effect, a second model 10 points better, the runs' models
// confounded with the versions. The Ignore ones are the same runs
// compared as before, pooled over models.
var ModelScenarios = []Scenario{
	{Name: "model switched with the edit: 20% → 80% on the better model", Noise: 10, ModelEffect: 10, BaseOnSecond: 0.2, CandOnSecond: 0.8},
	{Name: "same, models ignored (pooled)", Noise: 10, ModelEffect: 10, BaseOnSecond: 0.2, CandOnSecond: 0.8, IgnoreModels: true},
	{Name: "frozen baseline of 20 on one model, candidate on the other", Noise: 10, FrozenBase: 20, ModelEffect: 10, BaseOnSecond: 0, CandOnSecond: 1},
	{Name: "same, models ignored (pooled)", Noise: 10, FrozenBase: 20, ModelEffect: 10, BaseOnSecond: 0, CandOnSecond: 1, IgnoreModels: true},
	{Name: "frozen baseline of 20 on a 50/50 mix, candidate 90% on the better", Noise: 10, FrozenBase: 20, ModelEffect: 10, BaseOnSecond: 0.5, CandOnSecond: 0.9},
	{Name: "same, models ignored (pooled)", Noise: 10, FrozenBase: 20, ModelEffect: 10, BaseOnSecond: 0.5, CandOnSecond: 0.9, IgnoreModels: true},
}

// SimSeed seeds the tables in docs/decisions.md.
const SimSeed = 2026
