package activation

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/sepad/sepad/decide"
)

func group(from, claude, missed int) Group {
	return Group{From: from, To: from, Counts: Counts{Claude: claude, User: missed, Missed: missed}}
}

func TestCompare(t *testing.T) {
	o := decide.DefaultOptions()
	for _, tc := range []struct {
		name       string
		base, cand Group
		verdict    string
		words      string
	}{
		{"picked far more often", group(1, 2, 18), group(3, 18, 2), Better, "the new description is picked more often (with 95% confidence): the model picked it 90% of 20 chances under the description of v3, against 10% of 20 chances under v1's"},
		{"picked far less often", group(1, 19, 1), group(4, 1, 19), Worse, "the new description is picked less often (with 95% confidence)"},
		{"too few chances", group(1, 2, 18), group(3, 3, 0), Undecided, "activation not compared yet (3 chances and 20 chances; 5 of each are needed)"},
		{"baseline never had a chance", group(1, 0, 0), group(2, 9, 1), Undecided, "activation not compared yet"},
		{"the same share", group(1, 5, 5), group(2, 5, 5), Undecided, "activation not decided yet: the model picked it 50% of 10 chances under the description of v2, against 50% of 10 chances under v1's; needs about"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare("k", tc.base, tc.cand, o)
			if c.Verdict != tc.verdict || !strings.HasPrefix(c.Words, tc.words) {
				t.Errorf("%s (%s): %s", c.Verdict, c.Reason, c.Words)
			}
			if c.Baseline != tc.base.From || c.Candidate != tc.cand.From || c.CandidateN != tc.cand.Chances() {
				t.Errorf("comparison %+v", c)
			}
		})
	}
}

// With the same share under both descriptions, a description judged
// after every chance, up to max_samples, is found better in at most about
// 5% of runs, and worse in as few: each side's error rate of the
// decisions (docs/decisions.md).
func TestCompareFalseVerdicts(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	o := decide.DefaultOptions()
	r := rand.New(rand.NewPCG(37, 4))
	for _, p := range []float64{0.3, 0.6, 0.9} {
		const runs = 300
		wrong := map[string]int{}
		for i := 0; i < runs; i++ {
			var base, cand Group
			base.From, cand.From = 1, 2
			for j := 0; j < 40; j++ {
				add(&base.Counts, r.Float64() < p)
			}
			for j := 0; j < o.MaxSamples; j++ {
				add(&cand.Counts, r.Float64() < p)
				if c := Compare("k", base, cand, o); c.Verdict != Undecided {
					wrong[c.Verdict]++
					break
				}
			}
		}
		for _, v := range []string{Better, Worse} {
			// 7%: 5% and the binomial noise of 300 runs (±2.5 points).
			if rate := float64(wrong[v]) / runs; rate > 0.07 {
				t.Errorf("share %.1f: %d of %d runs found the new description %s (%.1f%%)", p, wrong[v], runs, v, 100*rate)
			}
		}
		t.Logf("share %.1f: of %d runs, %d found it better, %d worse", p, runs, wrong[Better], wrong[Worse])
	}
}

func add(c *Counts, picked bool) {
	if picked {
		c.Claude++
	} else {
		c.User++
		c.Missed++
	}
}
