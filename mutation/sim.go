package mutation

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	"github.com/sepad/sepad/aggregate"
)

// SimRow is one line of the simulation table in docs/decisions.md.
type SimRow struct {
	Method      Method
	TrueDelta   float64
	Improvement float64 // share accepted as an improvement
	Exploration float64 // share accepted for exploration
	Rejected    float64 // share rejected (regression, or worse with confidence)
	Undecided   float64 // share settled at max samples, baseline kept
	MeanExecs   float64 // mean executions per version used
}

// Simulate evaluates a candidate against a baseline runs times, with
// per-execution scores drawn from N(70, noise) and N(70+delta, noise),
// clamped to [0, 100]. Executions of both versions arrive in turn; the
// method looks after every one (sequential) or decides once at MinSamples
// (sepa, as the seed does).
func Simulate(m Method, delta, noise float64, runs int, seed uint64, o Options) SimRow {
	o.Method = m
	r := rand.New(rand.NewPCG(seed, uint64(delta*1000)+7))
	row := SimRow{Method: m, TrueDelta: delta}
	ao := aggregate.DefaultOptions()
	var execs float64
	for i := 0; i < runs; i++ {
		var b, c []float64 // newest first
		score := func(mu float64) float64 {
			return math.Round(math.Max(0, math.Min(100, mu+r.NormFloat64()*noise))*100) / 100
		}
		var d Decision
		for n := 1; ; n++ {
			b = append([]float64{score(70)}, b...)
			c = append([]float64{score(70 + delta)}, c...)
			if n < o.MinSamples {
				continue
			}
			d = Decide("sim", sample(fmt.Sprintf("b%d", i), b, ao), sample(fmt.Sprintf("c%d", i), c, ao), o)
			if d.Outcome != Undecided || m == MethodSepa {
				break
			}
		}
		execs += float64(len(c))
		switch {
		case d.Outcome == Accept && d.Reason == ReasonExploration:
			row.Exploration++
		case d.Outcome == Accept:
			row.Improvement++
		case d.Reason == ReasonNoEvidence:
			row.Undecided++
		default:
			row.Rejected++
		}
	}
	f := float64(runs)
	row.Improvement /= f
	row.Exploration /= f
	row.Rejected /= f
	row.Undecided /= f
	row.MeanExecs = execs / f
	return row
}

func sample(hash string, newestFirst []float64, ao aggregate.Options) Sample {
	a, _ := aggregate.Compute(newestFirst, ao)
	return Sample{Hash: hash, N: a.N, Aggregate: a.Value, Mean: a.Mean, SD: a.SD, Scores: newestFirst}
}

// FixedSampleN is the executions per version a fixed-sample one-sided
// z-test at level 1-confidence needs to reach power against delta, with
// per-execution noise sd.
func FixedSampleN(delta, sd, confidence, power float64) int {
	za := normQuantile(confidence)
	zb := normQuantile(power)
	return int(math.Ceil(2 * math.Pow((za+zb)*sd/delta, 2)))
}

// normQuantile inverts normCDF by bisection (accurate to 1e-9).
func normQuantile(p float64) float64 {
	lo, hi := -10.0, 10.0
	for hi-lo > 1e-9 {
		mid := (lo + hi) / 2
		if normCDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// WriteSimTable prints the markdown table of docs/decisions.md.
func WriteSimTable(w io.Writer, runs int, o Options) []SimRow {
	var rows []SimRow
	fmt.Fprintf(w, "| method | true Δ | accepted as improvement | accepted as exploration | rejected | undecided, baseline kept | mean executions per version |\n")
	fmt.Fprintf(w, "|---|---:|---:|---:|---:|---:|---:|\n")
	for _, m := range []Method{MethodSepa, MethodSequential} {
		for _, delta := range []float64{-10, -5, -3, 0, 3, 5, 10} {
			r := Simulate(m, delta, 10, runs, 2026, o)
			rows = append(rows, r)
			fmt.Fprintf(w, "| %s | %+g | %.1f%% | %.1f%% | %.1f%% | %.1f%% | %.1f |\n", m, delta,
				r.Improvement*100, r.Exploration*100, r.Rejected*100, r.Undecided*100, r.MeanExecs)
		}
	}
	for _, r := range rows {
		if r.Method == MethodSequential && r.TrueDelta == 5 {
			fmt.Fprintf(w, "\nAt +5 the sequential method accepts %.1f%% as improvements using %.1f executions per version on average; a fixed-sample one-sided test at the same 5%% level needs %d executions per version for the same power.\n",
				r.Improvement*100, r.MeanExecs, FixedSampleN(5, 10, o.Confidence, r.Improvement))
		}
	}
	return rows
}
