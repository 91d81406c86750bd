package validity

import (
	"math"
	"strings"
	"testing"
)

func TestAUC(t *testing.T) {
	for _, c := range []struct {
		name     string
		pos, neg []float64
		want     float64
	}{
		{"separated", []float64{3, 4, 5}, []float64{0, 1, 2}, 1},
		{"backwards", []float64{0, 1}, []float64{2, 3, 4}, 0},
		{"all tied", []float64{1, 1}, []float64{1, 1, 1}, 0.5},
		// pairs: (2>1) (2=2 half) (2<3) (4>1) (4>2) (4>3): 4.5 of 6.
		{"mixed with a tie", []float64{2, 4}, []float64{1, 2, 3}, 4.5 / 6},
		{"one each", []float64{0.3}, []float64{0.7}, 0},
	} {
		if got := AUC(c.pos, c.neg); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: AUC = %v, want %v", c.name, got, c.want)
		}
	}
	if !math.IsNaN(AUC(nil, []float64{1})) || !math.IsNaN(AUC([]float64{1}, nil)) {
		t.Error("AUC with an empty side is not NaN")
	}
}

// TestAUCPairs checks the rank formula against counting every pair.
func TestAUCPairs(t *testing.T) {
	pos := []float64{0.9, 0.5, 0.5, 0.7, 0.1, 1, 0.5}
	neg := []float64{0.5, 0.2, 0.9, 0.1, 0.1, 0.6}
	n := 0.0
	for _, p := range pos {
		for _, q := range neg {
			switch {
			case p > q:
				n++
			case p == q:
				n += 0.5
			}
		}
	}
	want := n / float64(len(pos)*len(neg))
	if got := AUC(pos, neg); math.Abs(got-want) > 1e-12 {
		t.Errorf("AUC = %v, pairs say %v", got, want)
	}
}

func TestHanleyMcNeilSE(t *testing.T) {
	// a = 0.5, 10 and 10: Q1 = Q2 = 1/3, variance (0.25 + 18/12)/100.
	if got, want := HanleyMcNeilSE(0.5, 10, 10), math.Sqrt(0.0175); math.Abs(got-want) > 1e-12 {
		t.Errorf("SE = %v, want %v", got, want)
	}
	if got := HanleyMcNeilSE(1, 5, 5); got != 0 {
		t.Errorf("SE of a perfect AUC = %v, want 0", got)
	}
}

func f(v float64) *float64 { return &v }

func TestVerdict(t *testing.T) {
	enough := func(a, se float64) Row {
		return Row{N: 40, Successes: 20, Failures: 20, AUC: f(a), SE: f(se)}
	}
	for _, c := range []struct {
		signal string
		r      Row
		want   string
	}{
		{"structure_score", enough(0.52, 0.05), "structure says nothing about success here"},
		{"structure_score", enough(0.41, 0.05), "structure says nothing about success here"},
		{Total, enough(0.9, 0.04), "the score follows success closely"},
		{"tool_success_rate", enough(0.75, 0.05), "tool success follows success"},
		{"efficiency", enough(0.65, 0.05), "efficiency follows success weakly"},
		{"efficiency", enough(0.65, 0.1), "efficiency follows success weakly (too few labels to be sure)"},
		{"output_quality", enough(0.35, 0.05), "output quality runs weakly against success"},
		{"output_quality", enough(0.25, 0.05), "output quality runs against success"},
		{"error_rate", enough(0.1, 0.03), "error-free runs against success: failures score higher"},
		{"my_signal", enough(0.85, 0.03), "my_signal follows success closely"},
		{Total, Row{N: 9, Successes: 5, Failures: 4, AUC: f(1), SE: f(0)}, "not enough labels (9: 5 successes, 4 failures; need 10 with 3 of each)"},
		{Total, Row{N: 30, Successes: 28, Failures: 2, AUC: f(1), SE: f(0)}, "not enough labels (30: 28 successes, 2 failures; need 10 with 3 of each)"},
		{Total, Row{N: 30, Successes: 30}, "not enough labels (30: 30 successes, 0 failures; need 10 with 3 of each)"},
		{Total, Row{N: 1, Successes: 1}, "not enough labels (1: 1 success, 0 failures; need 10 with 3 of each)"},
		{Total, Row{N: 2, Successes: 1, Failures: 1}, "not enough labels (2: 1 success, 1 failure; need 10 with 3 of each)"},
	} {
		if got := Verdict(c.signal, c.r, Options{}); got != c.want {
			t.Errorf("Verdict(%s, AUC %v): %q, want %q", c.signal, c.r.AUC, got, c.want)
		}
	}
}

func TestCompute(t *testing.T) {
	var obs []Observation
	// Rubric 2.0.0: structure is the same on every run; tool success and
	// the total separate the outcomes; checks only on some runs.
	for i := 0; i < 6; i++ {
		obs = append(obs,
			Observation{Rubric: "2.0.0", Source: SourceLabel, Success: true, Total: 90 + float64(i),
				Signals: map[string]float64{"tool_success_rate": 1, "structure_score": 1, "checks": 1}},
			Observation{Rubric: "2.0.0", Source: SourcePerson, Success: false, Total: 60 + float64(i),
				Signals: map[string]float64{"tool_success_rate": 0.5, "structure_score": 1}},
		)
	}
	obs = append(obs, Observation{Rubric: "1.2.0", Source: SourceEval, Success: true, Total: 50, Signals: map[string]float64{"tool_success_rate": 1}})
	gs := Compute(obs, Options{})
	if len(gs) != 2 || gs[0].Rubric != "1.2.0" || gs[1].Rubric != "2.0.0" {
		t.Fatalf("groups: %+v", gs)
	}
	g := gs[1]
	if g.N != 12 || g.Sources[SourceLabel] != 6 || g.Sources[SourcePerson] != 6 {
		t.Errorf("group: n %d, sources %v", g.N, g.Sources)
	}
	var names []string
	for _, r := range g.Rows {
		names = append(names, r.Signal)
	}
	if got := strings.Join(names, " "); got != "tool_success_rate structure_score checks total" {
		t.Fatalf("rows: %s", got)
	}
	rows := map[string]Row{}
	for _, r := range g.Rows {
		rows[r.Signal] = r
	}
	if r := rows["tool_success_rate"]; *r.AUC != 1 || r.N != 12 || *r.MeanSuccess != 1 || *r.MeanFailure != 0.5 {
		t.Errorf("tool_success_rate: %+v", r)
	}
	if r := rows["structure_score"]; *r.AUC != 0.5 || r.Verdict != "structure says nothing about success here" {
		t.Errorf("structure_score: %+v", r)
	}
	if r := rows["checks"]; r.AUC != nil || r.N != 6 || !strings.HasPrefix(r.Verdict, "not enough labels") {
		t.Errorf("checks (present on successes only): %+v", r)
	}
	if r := rows[Total]; *r.AUC != 1 || r.Verdict != "the score follows success closely" {
		t.Errorf("total: %+v", r)
	}
	if r := gs[0].Rows[len(gs[0].Rows)-1]; r.Signal != Total || r.AUC != nil {
		t.Errorf("1.2.0 total: %+v", r)
	}
}
