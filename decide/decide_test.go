package decide

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/decidetest"
)

const skillKey = "/p/.claude/skills/deploy/SKILL.md"

func TestDecideSepa(t *testing.T) {
	o := DefaultOptions()
	o.Method = MethodSepa
	base := Sample{N: 5, Aggregate: 70, Mean: 70, SD: 10}
	cases := []struct {
		name    string
		cand    float64
		hash    string
		outcome string
		reason  string
		draw    float64 // -1: no draw
	}{
		{"significant", 75.01, "c1", Accept, ReasonSignificant, -1},
		{"exactly_5_is_marginal", 75, "c1", Accept, ReasonMarginal, -1},
		{"marginal", 70.5, "c1", Accept, ReasonMarginal, -1},
		{"exactly_0_explores", 70, "c1", Reject, ReasonExploration, 0.4984890777508787},
		{"exploration_not_drawn", 68, "c1", Reject, ReasonExploration, 0.4984890777508787},
		{"exploration_drawn", 68, "c8", Accept, ReasonExploration, 0.04353956982119156},
		{"exactly_minus_3_is_regression", 67, "c8", Reject, ReasonRegression, -1},
		{"regression", 50, "c8", Reject, ReasonRegression, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(skillKey, "0a1b2c3d4e5f", c.hash, base, Sample{N: 5, Aggregate: c.cand, Mean: c.cand, SD: 10}, o)
			if d.Outcome != c.outcome || d.Reason != c.reason || d.Words != "" || d.Rule != "" || d.Method != MethodSepa {
				t.Fatalf("got %s/%s %q, want %s/%s", d.Outcome, d.Reason, d.Words, c.outcome, c.reason)
			}
			if math.Abs(d.Delta-(c.cand-70)) > 0.006 {
				t.Errorf("delta %v, want %v", d.Delta, c.cand-70)
			}
			switch {
			case c.draw < 0 && d.Draw != nil:
				t.Errorf("draw %v recorded without exploration", *d.Draw)
			case c.draw >= 0 && (d.Draw == nil || *d.Draw != c.draw):
				t.Errorf("draw %v, want %v (the PRNG stream changed: replays would decide differently)", d.Draw, c.draw)
			}
			// Interval and probability agree with the sign of the difference.
			if d.Interval[0] > d.Delta || d.Interval[1] < d.Delta || (d.Delta > 0) != (d.ProbBetter > 0.5) && d.Delta != 0 {
				t.Errorf("interval %v, prob %v for delta %v", d.Interval, d.ProbBetter, d.Delta)
			}
		})
	}
}

func TestExplorationDrawReproducible(t *testing.T) {
	a := ExplorationDraw(skillKey, "0a1b2c3d4e5f", "c1")
	if b := ExplorationDraw(skillKey, "0a1b2c3d4e5f", "c1"); a != b {
		t.Fatalf("same inputs, draws %v and %v", a, b)
	}
	for _, other := range [][3]string{{skillKey + "x", "0a1b2c3d4e5f", "c1"}, {skillKey, "0a1b2c3d4e5e", "c1"}, {skillKey, "0a1b2c3d4e5f", "c2"}, {skillKey, "c1", "0a1b2c3d4e5f"}} {
		if ExplorationDraw(other[0], other[1], other[2]) == a {
			t.Errorf("%v draws the same as the original", other)
		}
	}
	if a < 0 || a >= 1 {
		t.Fatalf("draw %v outside [0,1)", a)
	}
	// The draws are uniform enough: about 20% below 0.2.
	below := 0
	for i := 0; i < 2000; i++ {
		if ExplorationDraw("k", "b", string(rune('a'+i%26))+strings.Repeat("x", i/26)) < 0.2 {
			below++
		}
	}
	if below < 330 || below > 470 {
		t.Fatalf("%d of 2000 draws below 0.2", below)
	}
}

func TestDecideInsufficientSamples(t *testing.T) {
	for _, m := range []Method{MethodSepa, MethodSequential} {
		o := DefaultOptions()
		o.Method = m
		d := Decide(skillKey, "b", "c", Sample{Scores: decidetest.Scores(9, 70, 5)}, Sample{Scores: decidetest.Scores(3, 90, 5)}, o)
		if d.Outcome != Undecided || d.Reason != ReasonTooFew || d.NeededMore != 2 || d.Candidate.N != 3 || d.Baseline.N != 9 {
			t.Errorf("%s: %+v", m, d)
		}
	}
}

func TestDecideSequential(t *testing.T) {
	o := DefaultOptions()
	cases := []struct {
		name        string
		base, cand  []float64
		outcome     string
		reason      string
		final, draw bool
	}{
		// 20 executions each, 25 points apart with sd ~5: past the early
		// looks' high boundaries (accept (1.85 + 2/3)/√(1/3) = 4.36,
		// reject 1.96/√(1/3) = 3.39; z ≈ 6.9).
		{"clearly_better", decidetest.Scores(20, 70, 5), decidetest.Scores(20, 95, 5), Accept, ReasonBetter, false, false},
		{"clearly_worse", decidetest.Scores(20, 95, 5), decidetest.Scores(20, 70, 5), Reject, ReasonWorse, false, false},
		// 10 each, the same gap: z = 4.74 with 9 df is not yet past 6.57.
		{"early_look_is_strict", decidetest.Scores(10, 70, 5), decidetest.Scores(10, 95, 5), Undecided, ReasonUndecided, false, false},
		// 2 points apart, sd 10, 20 each: nowhere near.
		{"not_yet", decidetest.Scores(20, 70, 10), decidetest.Scores(20, 72, 10), Undecided, ReasonUndecided, false, false},
		// 6 points apart after 20 each: z = 1.9, bound 4.36.
		{"promising_not_yet", decidetest.Scores(20, 70, 10), decidetest.Scores(20, 76, 10), Undecided, ReasonUndecided, false, false},
		// 60 each, 6 points apart, sd 10: z ≈ 3.2 ≥ 1.85 at the last look.
		{"better_at_the_last_look", decidetest.Scores(60, 70, 10), decidetest.Scores(60, 76, 10), Accept, ReasonBetter, true, false},
		// 60 each, 1 point apart: no evidence; Δ > -3 so a draw is made.
		{"no_evidence_explores", decidetest.Scores(60, 70, 10), decidetest.Scores(60, 71, 10), Reject, ReasonNoEvidence, true, true},
		// 60 each, 3.2 points behind with sd 10: not significant (z = -1.7,
		// reject bound 1.96) and not within 3: the baseline stays, no draw.
		{"no_evidence_behind", decidetest.Scores(60, 73.2, 10), decidetest.Scores(60, 70, 10), Reject, ReasonNoEvidence, true, false},
		// A frozen baseline of 20 and a candidate at 60: the last look
		// spends the rest of α at t = 0.5 (bound 1.645, not 2.35).
		{"frozen_baseline_last_look", decidetest.Scores(20, 70, 10), decidetest.Scores(60, 75, 10), Accept, ReasonBetter, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(skillKey, "0a1b2c3d4e5f", "c1", Sample{Scores: c.base}, Sample{Scores: c.cand}, o)
			if d.Outcome != c.outcome || d.Reason != c.reason || d.Look == nil || d.Look.Final != c.final || (d.Draw != nil) != c.draw {
				t.Fatalf("got %s/%s draw %v look %+v", d.Outcome, d.Reason, d.Draw, d.Look)
			}
			// The decision and the always-valid interval agree.
			if (d.Outcome == Accept && d.Reason == ReasonBetter) != (d.Interval[0] > 0) {
				t.Errorf("accept %v but interval %v", d.Outcome, d.Interval)
			}
			if (d.Reason == ReasonWorse) != (d.Interval[1] < 0) {
				t.Errorf("reason %s but interval %v", d.Reason, d.Interval)
			}
			if d.Outcome == Undecided && (d.NeededMore < 1 || d.NeededMore > o.MaxSamples-len(c.cand)) {
				t.Errorf("needed more %d", d.NeededMore)
			}
			if d.Words != "" || d.Baseline.N != len(c.base) || d.Candidate.N != len(c.cand) {
				t.Errorf("record: %+v", d)
			}
		})
	}
	// The frozen baseline's last look is at information 0.5 and bound
	// 1.64485: the earlier looks, far above, spent almost nothing, so
	// nearly all of α is left for it (fixed-sample 1.644854).
	d := Decide(skillKey, "b", "c", Sample{Scores: decidetest.Scores(20, 70, 10)}, Sample{Scores: decidetest.Scores(60, 71, 10)}, o)
	if d.Look.Info != 0.5 || math.Abs(d.Look.Bound-1.64485) > 1e-4 {
		t.Errorf("frozen baseline: look %+v", d.Look)
	}
}

func TestSequentialBoundsAsymmetric(t *testing.T) {
	// Harm is undone sooner than a gain is believed: at 20 executions each
	// the accept bound is 4.36 and the reject bound 3.39; at the end 1.848
	// and 1.960.
	d := Decide(skillKey, "b", "c", Sample{Scores: decidetest.Scores(20, 70, 10)}, Sample{Scores: decidetest.Scores(20, 70, 10)}, DefaultOptions())
	if math.Abs(d.Look.Bound-4.3559) > 1e-3 || math.Abs(d.Look.RejectBound-3.3948) > 1e-3 {
		t.Fatalf("look %+v", d.Look)
	}
	d = Decide(skillKey, "b", "c", Sample{Scores: decidetest.Scores(60, 70, 10)}, Sample{Scores: decidetest.Scores(60, 70, 10)}, DefaultOptions())
	if math.Abs(d.Look.Bound-1.8482) > 1e-3 || math.Abs(d.Look.RejectBound-1.96) > 1e-3 {
		t.Fatalf("look %+v", d.Look)
	}
	// The demo's recorded v2 (12 points worse after 20 sessions each): the
	// reject side needs one more execution, the accept side would need six.
	v2 := []float64{68.19, 75.19, 85.83, 85.83, 52.27, 75.83, 58.83, 50.52, 78.83, 74.67, 64.02, 86.67, 75.83, 85.83, 65.19, 95.83, 83.69, 86.42, 82.86, 77.67}
	v1 := []float64{95, 86.67, 74.33, 95.83, 96.67, 86.67, 86.42, 85, 74.27, 87.33, 84.52, 86.42, 95.83, 95.83, 84.52, 95.83, 76.17, 95.83, 75.83, 95.83}
	d = Decide(skillKey, "b", "c", Sample{Scores: v1}, Sample{Scores: v2}, DefaultOptions())
	if d.Outcome != Undecided || d.NeededMore != 1 || d.Interval[1] < 0 {
		t.Fatalf("%+v (needed %d)", d.Look, d.NeededMore)
	}
}

func TestSequentialNeededMoreShrinks(t *testing.T) {
	o := DefaultOptions()
	base := Sample{Scores: decidetest.Scores(60, 70, 10)}
	prev := 1000
	for _, n := range []int{10, 20, 30} {
		d := Decide(skillKey, "b", "c", base, Sample{Scores: decidetest.Scores(n, 74, 10)}, o)
		if d.Outcome != Undecided {
			t.Fatalf("n=%d: %+v", n, d.Look)
		}
		if d.NeededMore+n > 60 || d.NeededMore+n > prev+10 {
			t.Errorf("n=%d: needed %d more", n, d.NeededMore)
		}
		prev = d.NeededMore + n
	}
}

func TestSequentialSummaryOnly(t *testing.T) {
	// Without scores the sequential method uses N, Mean and SD.
	d := Decide(skillKey, "b", "c", Sample{N: 60, Mean: 70, SD: 10}, Sample{N: 60, Mean: 80, SD: 10}, DefaultOptions())
	if d.Outcome != Accept || d.Reason != ReasonBetter || d.Look.CandN != 60 {
		t.Fatalf("%+v", d)
	}
}

func TestSequentialBadInputNeverPanics(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name       string
		base, cand Sample
		o          Options
	}{
		{"nan_scores", Sample{Scores: []float64{nan, 70, 71, 72, 73, 74, nan}}, Sample{Scores: []float64{math.Inf(1), 80, 81, 82, 83, 84}}, DefaultOptions()},
		{"identical_scores", Sample{Scores: decidetest.Scores(10, 70, 0)}, Sample{Scores: decidetest.Scores(10, 70, 0)}, DefaultOptions()},
		{"zero_options", Sample{Scores: decidetest.Scores(10, 70, 5)}, Sample{Scores: decidetest.Scores(10, 75, 5)}, Options{}},
		{"silly_options", Sample{Scores: decidetest.Scores(10, 70, 5)}, Sample{Scores: decidetest.Scores(10, 75, 5)}, Options{Method: "coin", MinSamples: -3, MaxSamples: 1, Confidence: 7, Exploration: -1, SDFloor: nan}},
		{"no_scores_no_n", Sample{}, Sample{}, DefaultOptions()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(skillKey, "b", "c", c.base, c.cand, c.o)
			if d.Outcome == "" || d.Reason == "" || math.IsNaN(d.Delta) || math.IsNaN(d.ProbBetter) {
				t.Fatalf("%+v", d)
			}
			if _, err := json.Marshal(d); err != nil {
				t.Fatalf("not recordable: %v", err)
			}
		})
	}
	// Identical constant scores: no difference, nothing accepted early.
	d := Decide(skillKey, "b", "c", Sample{Scores: decidetest.Scores(10, 70, 0)}, Sample{Scores: decidetest.Scores(10, 70, 0)}, DefaultOptions())
	if d.Outcome != Undecided {
		t.Fatalf("identical scores: %+v", d)
	}
}

func TestDecisionJSON(t *testing.T) {
	d := Decide(skillKey, "b", "c", Sample{Scores: decidetest.Scores(60, 70, 10)}, Sample{Scores: decidetest.Scores(60, 71, 10)}, DefaultOptions())
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	for _, k := range []string{"method", "outcome", "reason", "words", "delta", "prob_better", "interval", "draw", "look", "baseline", "candidate", "options"} {
		if _, ok := m[k]; !ok {
			t.Errorf("key %q missing from %s", k, b)
		}
	}
	for _, k := range []string{"n", "sd", "mean", "aggregate", "fail_rate", "hash"} {
		if _, ok := m["candidate"].(map[string]any)[k]; !ok {
			t.Errorf("candidate key %q missing", k)
		}
	}
	if strings.Contains(string(b), "scores") {
		t.Errorf("scores recorded: %s", b)
	}
}

func TestDistributions(t *testing.T) {
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.10g, want %.10g", name, got, want)
		}
	}
	near("Φ⁻¹(0.975)", normQuantile(0.975), 1.959963984540054, 1e-9)
	near("Φ⁻¹(0.05)", normQuantile(0.05), -1.6448536269514722, 1e-9)
	near("S⁻¹(1e-10)", normSFInv(1e-10), 6.361340902404056, 1e-7)
	near("S⁻¹(0.7)", normSFInv(0.7), -0.5244005127080407, 1e-9)
	near("t5 upper 5%", tSF(2.015048373, 5), 0.05, 1e-7)
	near("t10 upper 2.5%", tSF(2.228138852, 10), 0.025, 1e-7)
	near("t1 (Cauchy) at 1", tSF(1, 1), 0.25, 1e-9)
	near("t30 lower", tSF(-1.697260887, 30), 0.95, 1e-7)
	near("t→z large df", tToZ(1.96, 1e9), 1.96, 1e-6)
	near("t→z 4 df", tToZ(2.131846786, 4), 1.6448536269514722, 1e-6)
	near("t→z symmetric", tToZ(-2.131846786, 4), -1.6448536269514722, 1e-6)
	for _, c := range [][2]float64{{1.6448536269514722, 4}, {4.8, 9}, {7, 4}, {0.3, 2}, {1.96, 1000}} {
		near("z→t→z", tToZ(zToT(c[0], c[1]), c[1]), c[0], 1e-7)
	}
	near("z→t 4 df", zToT(1.6448536269514722, 4), 2.131846786, 1e-6)
	if z := tToZ(1e6, 3); z < 8 || math.IsInf(z, 0) {
		t.Errorf("extreme t: z %v", z)
	}
}

func TestBoundary(t *testing.T) {
	near := func(name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.10g, want %.10g", name, got, want)
		}
	}
	flat := lineFor(0.05, 0)
	near("c1 flat", flat.c1, 1.959963984540054, 1e-8)
	near("P(cross flat)", crossProbability(1.959963984540054, 0, 1), 0.05, 1e-12)
	near("final at t=1", flat.final(1, 0.05), flat.c1, 1e-5)
	near("final at t=0.5", flat.final(0.5, 0.05), 1.6453, 1e-4)
	// A very short horizon leaves almost all of α for the last look: the
	// fixed-sample one-sided bound.
	near("final at t=0.01", flat.final(0.01, 0.05), 1.6448536, 1e-6)
	tilted := lineFor(0.05, 1)
	near("P(cross tilted)", crossProbability(tilted.c1+1, -1, 1), 0.05, 1e-10)
	if tilted.c1 >= flat.c1 || tilted.z(0.2) <= flat.z(0.2) {
		t.Errorf("the tilted line should end lower and start higher: %+v %+v", tilted, flat)
	}
	// The closed form against a Brownian motion on a fine grid (which
	// crosses a little less often than a continuous one).
	r := rand.New(rand.NewPCG(1, 2))
	const paths, steps = 4000, 400
	for _, l := range []line{flat, tilted} {
		crossed := 0
		for p := 0; p < paths; p++ {
			w := 0.0
			for s := 1; s <= steps; s++ {
				w += r.NormFloat64() / math.Sqrt(steps)
				if t := float64(s) / steps; w >= l.c1+l.k*(1-t) {
					crossed++
					break
				}
			}
		}
		if f := float64(crossed) / paths; f < 0.036 || f > 0.056 {
			t.Errorf("line %+v: Monte Carlo crossing %.4f, closed form 0.05", l, f)
		}
	}
}
