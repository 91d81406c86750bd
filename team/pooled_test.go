package team

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/sepad/sepad/decide"
)

func TestAdjust(t *testing.T) {
	// Machine a is 20 points above machine b; each ran both versions,
	// the same level: adjusted, the versions agree. Machine c ran only
	// the candidate and is left out.
	runs := []Run{{"a", true, 90, ""}, {"b", false, 70, ""}, {"a", false, 90, ""}, {"b", true, 70, ""}, {"c", true, 10, ""}}
	base, cand := Adjust(runs)
	if len(base) != 2 || len(cand) != 2 {
		t.Fatalf("base %v cand %v", base, cand)
	}
	for _, x := range append(base, cand...) {
		if math.Abs(x-80) > 1e-9 {
			t.Fatalf("adjusted scores %v %v, want all 80", base, cand)
		}
	}
	if b, c := Adjust([]Run{{"a", true, 1, ""}}); b != nil || c != nil {
		t.Fatal("one version only: nothing to compare")
	}
}

// TestAdjustTakesModelOut (issue 37 item 3): one machine, both versions
// on both models, the candidate mostly on opus, 10 points above sonnet,
// with no prompt effect: adjusted per machine and model, the versions
// agree; adjusted per machine alone, the candidate gains the model's
// points.
func TestAdjustTakesModelOut(t *testing.T) {
	var runs []Run
	add := func(cand bool, model string, n int, score float64) {
		for i := 0; i < n; i++ {
			runs = append(runs, Run{Machine: "a", Candidate: cand, Score: score, Model: model})
		}
	}
	add(false, "sonnet", 8, 70)
	add(false, "opus", 2, 80)
	add(true, "sonnet", 2, 70)
	add(true, "opus", 8, 80)
	mean := func(xs []float64) float64 { m, _ := decide.MeanSD(xs); return m }
	b, c := Adjust(runs)
	if len(b) != 10 || len(c) != 10 || math.Abs(mean(c)-mean(b)) > 1e-9 {
		t.Fatalf("per machine and model: %v against %v", c, b)
	}
	for i := range runs {
		runs[i].Model = ""
	}
	if b, c := Adjust(runs); mean(c)-mean(b) < 5 {
		t.Fatalf("per machine alone the model's points should show: %v against %v", c, b)
	}
}

// pooledCase is one row of the pooled decision's simulation.
type pooledCase struct {
	name     string
	machines int
	// spread is the standard deviation of the machines' levels.
	spread float64
	// shifted: the baseline's runs come from the first half of the
	// machines four times in five, the candidate's from the second half.
	shifted bool
	adjust  bool
}

type pooledRow struct {
	improvement, runs, perMachine float64
}

// simulatePooled runs trials evaluations of a candidate Δ points better
// than its baseline, both run in turn (docs/decisions.md's "alternating,
// sd 10"), each run on a machine drawn as the case says; the sequential
// test looks after every run, as the daemon does.
func simulatePooled(c pooledCase, delta float64, trials int, seed uint64) pooledRow {
	o := decide.DefaultOptions()
	r := rand.New(rand.NewPCG(seed, uint64(delta*1000)+7))
	var row pooledRow
	for i := 0; i < trials; i++ {
		level := make([]float64, c.machines)
		for j := range level {
			level[j] = r.NormFloat64() * c.spread
		}
		pick := func(cand bool) int {
			if !c.shifted || c.machines < 2 {
				return r.IntN(c.machines)
			}
			half := c.machines / 2
			first := r.Float64() < 0.8
			if cand {
				first = !first
			}
			if first {
				return r.IntN(half)
			}
			return half + r.IntN(c.machines-half)
		}
		var runs []Run // newest first
		var d decide.Decision
		used := map[int]bool{}
		ncand := 0
		for step := 0; ncand < 4*o.MaxSamples; step++ {
			cand := step%2 == 1
			m := pick(cand)
			used[m] = true
			mu := 70 + level[m]
			if cand {
				mu += delta
				ncand++
			}
			x := math.Round(math.Max(0, math.Min(100, mu+r.NormFloat64()*10))*100) / 100
			runs = append([]Run{{Machine: fmt.Sprint(m), Candidate: cand, Score: x}}, runs...)
			var b, cs []float64
			if c.adjust {
				b, cs = Adjust(runs)
			} else {
				for _, r := range runs {
					if r.Candidate {
						cs = append(cs, r.Score)
					} else {
						b = append(b, r.Score)
					}
				}
			}
			if len(b) < o.MinSamples || len(cs) < o.MinSamples {
				continue
			}
			d = decide.Decide("sim", "b", "c", decide.Sample{Scores: b}, decide.Sample{Scores: cs}, o)
			if d.Outcome != decide.Undecided {
				break
			}
		}
		if d.Outcome == decide.Accept && d.Reason != decide.ReasonExploration {
			row.improvement++
		}
		row.runs += float64(ncand)
		row.perMachine += float64(ncand) / float64(len(used))
	}
	f := float64(trials)
	return pooledRow{row.improvement / f, row.runs / f, row.perMachine / f}
}

var pooledCases = []pooledCase{
	{name: "one machine", machines: 1},
	{name: "10 machines, levels sd 8, any machine", machines: 10, spread: 8},
	{name: "10 machines, levels sd 8, shifted mix, pooled as is", machines: 10, spread: 8, shifted: true},
	{name: "10 machines, levels sd 8, shifted mix, adjusted", machines: 10, spread: 8, shifted: true, adjust: true},
	{name: "10 machines, levels sd 8, any machine, adjusted", machines: 10, spread: 8, adjust: true},
}

// TestPooledDecision: the sequential test on many machines' runs keeps its
// false-accept rate at Δ = 0 when the machines' levels differ, once each
// machine's level is removed (Adjust), and decides Δ = +5 with fewer runs
// of each machine than one machine alone. SEPAD_POOLED_SIM=1 runs 2,000
// evaluations per cell and prints BENCHMARKS.md's table.
func TestPooledDecision(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of simulation: runs without -short")
	}
	trials := 200
	full := os.Getenv("SEPAD_POOLED_SIM") == "1"
	if full {
		trials = 2000
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| runs from | accepted at Δ=0 | accepted at Δ=+5 | candidate runs to decide +5 (pooled) | of each machine |\n|---|---|---|---|---|\n")
	rows := map[string][2]pooledRow{}
	for _, c := range pooledCases {
		r0, r5 := simulatePooled(c, 0, trials, 1), simulatePooled(c, 5, trials, 2)
		rows[c.name] = [2]pooledRow{r0, r5}
		fmt.Fprintf(&b, "| %s | %.1f %% | %.1f %% | %.1f | %.1f |\n", c.name, 100*r0.improvement, 100*r5.improvement, r5.runs, r5.perMachine)
	}
	t.Logf("%d evaluations per cell:\n%s", trials, b.String())
	bound := 0.08 // loose: 200 evaluations have a sampling error of ±3 points
	if full {
		bound = 0.05
	}
	for _, name := range []string{"one machine", "10 machines, levels sd 8, shifted mix, adjusted", "10 machines, levels sd 8, any machine, adjusted"} {
		if got := rows[name][0].improvement; got > bound {
			t.Errorf("%s: %.1f %% accepted at Δ=0 (bound %.0f %%)", name, 100*got, 100*bound)
		}
	}
	one := rows["one machine"][1].perMachine
	if adj := rows["10 machines, levels sd 8, shifted mix, adjusted"][1].perMachine; adj >= one {
		t.Errorf("pooled and adjusted: %.1f runs of each machine to decide +5, one machine alone %.1f", adj, one)
	}
}
