// Package aggregate computes the SEPA aggregate of a skill version's scores:
// drop the top and bottom 10% by value, then a recency-weighted mean of the
// newest scores that remain (weights 1.0, 0.9, 0.8, 0.7, 0.6 by default, so
// only the five most recent surviving scores count). It is pure; State
// updates it incrementally at a cost bounded by the window, not the history.
package aggregate

import (
	"math"
	"sort"
)

// Options configure the aggregate.
type Options struct {
	// Weights are the recency weights, newest surviving score first.
	Weights []float64
	// Trim is the fraction dropped at each end: floor(n·Trim) scores each.
	Trim float64
	// MinSamples is the count below which a version is ungraded.
	MinSamples int
	// Window is how many of the newest scores the trimmed, weighted part
	// looks at. n, mean and standard deviation cover the whole history.
	Window int
}

// DefaultOptions are the seed's: weights [1.0 0.9 0.8 0.7 0.6], 10% trim,
// 3 samples to grade, a window of 100 scores.
func DefaultOptions() Options {
	return Options{Weights: []float64{1.0, 0.9, 0.8, 0.7, 0.6}, Trim: 0.1, MinSamples: 3, Window: 100}
}

func (o Options) window() int {
	if o.Window <= 0 {
		return 100
	}
	return o.Window
}

// Aggregate is the summary of one version's scores.
type Aggregate struct {
	// N counts every score; Mean and SD (sample standard deviation) cover
	// them all.
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	// Value is the trimmed, recency-weighted aggregate; 0 when N is 0.
	Value float64 `json:"aggregate"`
	// Last is the newest score.
	Last float64 `json:"last"`
	// Graded is false below MinSamples.
	Graded bool `json:"graded"`
}

// Entry explains how one score entered the aggregate.
type Entry struct {
	// Index is the position newest first (0 = newest) within the window.
	Index   int     `json:"index"`
	Score   float64 `json:"score"`
	Trimmed string  `json:"trimmed,omitempty"` // "top", "bottom" or ""
	Weight  float64 `json:"weight"`            // 0 when trimmed or beyond the weights
}

// Compute returns the aggregate of scores given newest first, and how each
// score of the window entered it.
func Compute(newestFirst []float64, o Options) (Aggregate, []Entry) {
	a := Aggregate{N: len(newestFirst)}
	if a.N == 0 {
		return a, nil
	}
	// The same accumulation as State, oldest first, so both agree to the bit.
	var st State
	for i := len(newestFirst) - 1; i >= 0; i-- {
		st.N++
		d := newestFirst[i] - st.Mean
		st.Mean += d / float64(st.N)
		st.M2 += d * (newestFirst[i] - st.Mean)
	}
	a.Mean = st.Mean
	if a.N > 1 {
		a.SD = math.Sqrt(st.M2 / float64(a.N-1))
	}
	a.Last = newestFirst[0]
	win := newestFirst
	if len(win) > o.window() {
		win = win[:o.window()]
	}
	v, entries := weighted(win, o)
	a.Value = v
	a.Graded = a.N >= max(o.MinSamples, 1)
	a.Mean, a.SD, a.Value = round4(a.Mean), round4(a.SD), round4(a.Value)
	return a, entries
}

// weighted trims and weights a window of scores, newest first.
func weighted(win []float64, o Options) (float64, []Entry) {
	n := len(win)
	k := int(math.Floor(float64(n)*o.Trim + 1e-9))
	entries := make([]Entry, n)
	for i, s := range win {
		entries[i] = Entry{Index: i, Score: s}
	}
	// Order by value; among equal values the oldest (largest index) is
	// dropped first, at either end.
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if win[idx[a]] != win[idx[b]] {
			return win[idx[a]] < win[idx[b]]
		}
		return idx[a] > idx[b]
	})
	for j := 0; j < k; j++ {
		entries[idx[j]].Trimmed = "bottom"
	}
	sort.SliceStable(idx, func(a, b int) bool {
		if win[idx[a]] != win[idx[b]] {
			return win[idx[a]] > win[idx[b]]
		}
		return idx[a] > idx[b]
	})
	for j, dropped := 0, 0; dropped < k && j < n; j++ {
		if entries[idx[j]].Trimmed == "" {
			entries[idx[j]].Trimmed = "top"
			dropped++
		}
	}
	var ws, wsum float64
	w := 0
	for i := range entries {
		if entries[i].Trimmed != "" || w >= len(o.Weights) {
			continue
		}
		entries[i].Weight = o.Weights[w]
		ws += entries[i].Score * o.Weights[w]
		wsum += o.Weights[w]
		w++
	}
	if wsum == 0 {
		return 0, entries
	}
	return ws / wsum, entries
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// State is the incremental form of the aggregate: Welford's running mean
// and variance over the whole history, and the newest Window scores for the
// trimmed, weighted part. It is JSON-serialisable for the store.
type State struct {
	N int `json:"n"`
	// Mean and M2 are Welford's accumulators.
	Mean float64 `json:"mean"`
	M2   float64 `json:"m2"`
	// Recent holds the newest scores, newest first, at most Window.
	Recent []float64 `json:"recent"`
	// IDs are the execution IDs of Recent, for explain.
	IDs []string `json:"ids,omitempty"`
}

// Add records a new score, the newest, with the execution it came from.
// Its cost is bounded by the window.
func (s *State) Add(score float64, id string, o Options) {
	s.N++
	d := score - s.Mean
	s.Mean += d / float64(s.N)
	s.M2 += d * (score - s.Mean)
	s.Recent = append([]float64{score}, s.Recent...)
	s.IDs = append([]string{id}, s.IDs...)
	if w := o.window(); len(s.Recent) > w {
		s.Recent, s.IDs = s.Recent[:w], s.IDs[:w]
	}
}

// Replace changes the score of execution id from old to new (a label
// changed it): Welford's accumulators as if new had been added instead of
// old, and the score in the window if it is still there.
func (s *State) Replace(id string, old, new float64) {
	if s.N == 0 {
		return
	}
	d := new - old
	mean := s.Mean
	s.Mean += d / float64(s.N)
	s.M2 += d * (new - s.Mean + old - mean)
	if s.M2 < 0 {
		s.M2 = 0
	}
	for i := range s.IDs {
		if s.IDs[i] == id && i < len(s.Recent) {
			s.Recent[i] = new
		}
	}
}

// Aggregate returns the aggregate the state stands for: equal to Compute
// over the full history (to 4 decimals).
func (s *State) Aggregate(o Options) Aggregate {
	a := Aggregate{N: s.N}
	if s.N == 0 {
		return a
	}
	a.Mean = round4(s.Mean)
	if s.N > 1 {
		a.SD = round4(math.Sqrt(s.M2 / float64(s.N-1)))
	}
	a.Last = s.Recent[0]
	v, _ := weighted(s.window(o), o)
	a.Value = round4(v)
	a.Graded = s.N >= max(o.MinSamples, 1)
	return a
}

// Explain returns how each score of the window entered the aggregate.
func (s *State) Explain(o Options) []Entry {
	_, e := weighted(s.window(o), o)
	return e
}

// window returns the newest o.Window scores: a State built with a larger
// window and read with a smaller one agrees with Compute. (Read with a
// larger one, it has only the scores it kept.)
func (s *State) window(o Options) []float64 {
	if len(s.Recent) > o.window() {
		return s.Recent[:o.window()]
	}
	return s.Recent
}
