package aggregate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestHandWorked(t *testing.T) {
	o := DefaultOptions()
	seq := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i)
		}
		return s
	}
	cases := []struct {
		name   string
		scores []float64 // newest first
		want   float64
		trim   map[int]string
	}{
		// n < 10: nothing trimmed; weights 1, .9, .8: 215/2.7.
		{"n3_no_trim", []float64{80, 70, 90}, 79.6296, nil},
		// n = 10: k = 1; 40 (bottom) and 100 (top) dropped;
		// 50·1 + 60·.9 + 70·.8 + 80·.7 + 90·.6 = 270, / 4.0.
		{"n10_one_each_side", []float64{50, 60, 70, 80, 90, 100, 40, 65, 75, 85}, 67.5, map[int]string{5: "top", 6: "bottom"}},
		// Ties: the oldest of equal values is dropped first.
		{"ties_oldest_dropped", []float64{90, 90, 10, 50, 50, 50, 50, 50, 50, 90}, 69, map[int]string{2: "bottom", 9: "top"}},
		{"all_equal", []float64{50, 50, 50, 50, 50, 50, 50, 50, 50, 50}, 50, map[int]string{9: "bottom", 8: "top"}},
		// n = 100, score = position: 0..9 and 90..99 dropped; survivors
		// 10..14 weighted: (10 + 9.9 + 9.6 + 9.1 + 8.4) / 4.
		{"n100", seq(100), 11.75, map[int]string{0: "bottom", 9: "bottom", 10: "", 89: "", 90: "top", 99: "top"}},
		{"n1", []float64{42}, 42, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, entries := Compute(c.scores, o)
			if math.Abs(a.Value-c.want) > 0.0001 {
				t.Errorf("aggregate = %v, want %v", a.Value, c.want)
			}
			for i, want := range c.trim {
				if entries[i].Trimmed != want {
					t.Errorf("entry %d trimmed %q, want %q", i, entries[i].Trimmed, want)
				}
			}
			if a.N != len(c.scores) || a.Last != c.scores[0] {
				t.Errorf("n=%d last=%v", a.N, a.Last)
			}
		})
	}
}

func TestOnlyFiveNewestSurvivorsCount(t *testing.T) {
	// Changing the sixth surviving score changes nothing.
	a, _ := Compute([]float64{70, 70, 70, 70, 70, 10}, DefaultOptions())
	b, _ := Compute([]float64{70, 70, 70, 70, 70, 99}, DefaultOptions())
	if a.Value != b.Value || a.Value != 70 {
		t.Fatalf("%v %v", a.Value, b.Value)
	}
}

func TestUngradedBelowMinSamples(t *testing.T) {
	a, _ := Compute([]float64{90, 90}, DefaultOptions())
	if a.Graded {
		t.Fatal("graded with 2 samples")
	}
	a, _ = Compute([]float64{90, 90, 90}, DefaultOptions())
	if !a.Graded {
		t.Fatal("ungraded with 3 samples")
	}
}

func TestMeanSD(t *testing.T) {
	a, _ := Compute([]float64{2, 4, 4, 4, 5, 5, 7, 9}, DefaultOptions())
	if a.Mean != 5 || math.Abs(a.SD-2.1381) > 0.0001 {
		t.Fatalf("mean %v sd %v", a.Mean, a.SD)
	}
}

// The incremental State always equals Compute over the same history.
func TestStateMatchesCompute(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 50; trial++ {
		o := DefaultOptions()
		o.Window = 5 + r.IntN(60)
		var st State
		var hist []float64 // newest first
		for i := 0; i < 150; i++ {
			s := math.Round(r.Float64()*10000) / 100
			if r.IntN(4) == 0 && len(hist) > 0 {
				s = hist[r.IntN(len(hist))] // ties
			}
			st.Add(s, fmt.Sprint(i), o)
			hist = append([]float64{s}, hist...)
			want, _ := Compute(hist, o)
			got := st.Aggregate(o)
			if got != want {
				t.Fatalf("trial %d step %d window %d: state %+v, compute %+v", trial, i, o.Window, got, want)
			}
		}
		if len(st.Recent) != o.Window || st.IDs[0] != "149" {
			t.Fatalf("window not bounded: %d", len(st.Recent))
		}
	}
}
