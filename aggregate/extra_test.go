package aggregate

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

// Explain gives each score of the window its trim mark and weight: the
// weights go to the newest survivors in order, and the trimmed and the
// sixth survivor onward get none.
func TestExplainWeights(t *testing.T) {
	// Newest first; n = 12, k = 1: 5 (bottom) and 99 (top) are dropped.
	scores := []float64{60, 99, 70, 80, 5, 90, 65, 75, 85, 50, 55, 66}
	a, entries := Compute(scores, DefaultOptions())
	want := []struct {
		trimmed string
		weight  float64
	}{{"", 1}, {"top", 0}, {"", 0.9}, {"", 0.8}, {"bottom", 0}, {"", 0.7}, {"", 0.6}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}}
	for i, w := range want {
		if entries[i].Trimmed != w.trimmed || entries[i].Weight != w.weight || entries[i].Index != i || entries[i].Score != scores[i] {
			t.Errorf("entry %d = %+v, want %+v", i, entries[i], w)
		}
	}
	// (60 + 63 + 64 + 63 + 39) / 4.0 = 72.25
	if a.Value != 72.25 {
		t.Errorf("value %v, want 72.25", a.Value)
	}
	var st State
	for i := len(scores) - 1; i >= 0; i-- {
		st.Add(scores[i], fmt.Sprint(i), DefaultOptions())
	}
	if fmt.Sprint(st.Explain(DefaultOptions())) != fmt.Sprint(entries) {
		t.Errorf("State.Explain differs from Compute:\n%v\n%v", st.Explain(DefaultOptions()), entries)
	}
}

// Custom options: other weights, trim, minimum samples and window.
func TestCustomOptions(t *testing.T) {
	o := Options{Weights: []float64{2, 1}, Trim: 0.25, MinSamples: 5, Window: 4}
	// Window: the newest 4 (10, 20, 30, 40); k = 1: 10 and 40 dropped;
	// (20·2 + 30·1) / 3 = 23.3333. n, mean and sd cover all 6.
	a, _ := Compute([]float64{10, 20, 30, 40, 1000, 1000}, o)
	if a.Value != 23.3333 || a.N != 6 || a.Mean != 350 || !a.Graded {
		t.Fatalf("%+v", a)
	}
	if b, _ := Compute([]float64{10, 20, 30, 40}, o); b.Graded {
		t.Fatalf("graded below MinSamples: %+v", b)
	}
}

// State survives a JSON round trip and goes on agreeing with Compute.
func TestStateJSONRoundTrip(t *testing.T) {
	o := DefaultOptions()
	var st State
	var hist []float64
	for i := 0; i < 130; i++ {
		s := math.Round(float64((i*37)%101)*100) / 100
		st.Add(s, fmt.Sprint(i), o)
		hist = append([]float64{s}, hist...)
		if i%40 == 0 {
			b, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			st = State{}
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, _ := Compute(hist, o)
	if got := st.Aggregate(o); got != want {
		t.Fatalf("after round trips %+v, want %+v", got, want)
	}
}

// Read with a smaller window than it was built with, a State still agrees
// with Compute (it looks at the newest Window scores only).
func TestStateReadWithSmallerWindow(t *testing.T) {
	big, small := DefaultOptions(), DefaultOptions()
	small.Window = 10
	var st State
	var hist []float64
	for i := 0; i < 50; i++ {
		s := float64(i)
		st.Add(s, fmt.Sprint(i), big)
		hist = append([]float64{s}, hist...)
	}
	want, wantE := Compute(hist, small)
	if got := st.Aggregate(small); got != want {
		t.Fatalf("aggregate %+v, want %+v", got, want)
	}
	if got := st.Explain(small); len(got) != len(wantE) {
		t.Fatalf("explain has %d entries, want %d", len(got), len(wantE))
	}
}

// TestStateReplace: replacing one score equals the aggregate of the
// history with the new score in its place (to 4 decimals), in the window
// or beyond it.
func TestStateReplace(t *testing.T) {
	o := DefaultOptions()
	o.Window = 4
	scores := []float64{70, 82.5, 64, 91, 55, 78} // oldest first
	for at := range scores {
		var st State
		for i, sc := range scores {
			st.Add(sc, string(rune('a'+i)), o)
		}
		st.Replace(string(rune('a'+at)), scores[at], 12.25)
		want := append([]float64(nil), scores...)
		want[at] = 12.25
		newest := make([]float64, len(want))
		for i := range want {
			newest[len(want)-1-i] = want[i]
		}
		exp, _ := Compute(newest, o)
		if got := st.Aggregate(o); got != exp {
			t.Errorf("replace #%d: %+v, want %+v", at, got, exp)
		}
	}
	var empty State
	empty.Replace("x", 1, 2)
	if empty.N != 0 || empty.Mean != 0 {
		t.Errorf("replace on an empty state: %+v", empty)
	}
}
