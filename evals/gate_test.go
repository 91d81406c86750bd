package evals

import (
	"strings"
	"testing"
)

func f(x float64) *float64 { return &x }

// ev is a suite run with one case per score, threshold 1.
func ev(version string, scores map[string]float64) *Evidence {
	e := &Evidence{Version: version, Threshold: 1, Runs: 1, CostUSD: 0.01}
	names := []string{"rollback", "ships", "status"}
	n := 0
	for _, name := range names {
		s, ok := scores[name]
		if !ok {
			continue
		}
		e.Cases = append(e.Cases, Case{Name: name, Score: s, Runs: 1, Passed: s >= 1})
		e.Score += s
		n++
	}
	if n > 0 {
		e.Score /= float64(n)
	}
	return e
}

func TestJudge(t *testing.T) {
	base := ev("b", map[string]float64{"ships": 1, "rollback": 1})
	for _, tc := range []struct {
		name    string
		cand    *Evidence
		base    *Evidence
		gate    Gate
		held    bool
		failing []string
		fell    []string
		words   string
	}{
		{"every case passes", ev("c", map[string]float64{"ships": 1, "rollback": 1}), base, Gate{MaxDrop: f(0.1)}, true, nil, nil,
			"eval gate held: 1.00 over 2 cases × 1 run, every case at least 1.00; baseline 1.00, drop 0.00 (allowed 0.10)"},
		{"a case below the suite's threshold", ev("c", map[string]float64{"ships": 1, "rollback": 0}), nil, Gate{}, false, []string{"rollback (0.00)"}, nil,
			"refused by eval gate: case rollback (0.00) is below the threshold 1.00 (score 0.50 over 2 cases × 1 run)"},
		{"the gate's threshold replaces the suite's", ev("c", map[string]float64{"ships": 1, "rollback": 0.5}), nil, Gate{Threshold: f(0.5)}, true, nil, nil,
			"eval gate held: 0.75 over 2 cases × 1 run, every case at least 0.50"},
		{"two cases below", ev("c", map[string]float64{"ships": 0.4, "rollback": 0.5}), nil, Gate{Threshold: f(0.6)}, false, []string{"rollback (0.50)", "ships (0.40)"}, nil,
			"refused by eval gate: cases rollback (0.50), ships (0.40) are below the threshold 0.60"},
		{"a drop within the allowance", ev("c", map[string]float64{"ships": 1, "rollback": 0.8}), base, Gate{Threshold: f(0.5), MaxDrop: f(0.1)}, true, nil, nil,
			"baseline 1.00, drop 0.10 (allowed 0.10)"},
		{"a drop beyond it", ev("c", map[string]float64{"ships": 1, "rollback": 0.6}), base, Gate{Threshold: f(0.5), MaxDrop: f(0.1)}, false, nil, []string{"rollback (1.00 → 0.60)"},
			"refused by eval gate: the score 0.80 over 2 cases × 1 run fell more than allowed; baseline 1.00, drop 0.20 (allowed 0.10); fell: rollback (1.00 → 0.60)"},
		{"both", ev("c", map[string]float64{"ships": 0, "rollback": 1}), base, Gate{MaxDrop: f(0)}, false, []string{"ships (0.00)"}, []string{"ships (1.00 → 0.00)"},
			"and the score 0.50 over 2 cases × 1 run fell more than allowed"},
		{"no baseline score: only the threshold", ev("c", map[string]float64{"ships": 1}), nil, Gate{MaxDrop: f(0.1)}, true, nil, nil,
			"no recorded score of the baseline to compare with"},
		{"a better candidate than the baseline", ev("c", map[string]float64{"ships": 1, "rollback": 1, "status": 1}), ev("b", map[string]float64{"ships": 0.5}), Gate{Threshold: f(0), MaxDrop: f(0)}, true, nil, nil,
			"baseline 0.50, drop 0.00 (allowed 0.00)"},
		{"a partial run", func() *Evidence {
			e := ev("c", map[string]float64{"ships": 1})
			e.Partial, e.PartialReason = true, "cost ceiling"
			return e
		}(), base, Gate{}, false, nil, nil, "refused by eval gate: the candidate's suite run shows nothing, it stopped early (cost ceiling)"},
		{"no case", ev("c", nil), base, Gate{}, false, nil, nil, "it has no case"},
	} {
		v := Judge(tc.cand, tc.base, tc.gate)
		if v.Held != tc.held || strings.Join(v.Failing, "|") != strings.Join(tc.failing, "|") || strings.Join(v.Fell, "|") != strings.Join(tc.fell, "|") || !strings.Contains(v.Words, tc.words) {
			t.Errorf("%s: %+v\nwords %q\nwant held %v failing %v fell %v words with %q", tc.name, v, v.Words, tc.held, tc.failing, tc.fell, tc.words)
		}
		if v.Candidate != "c" {
			t.Errorf("%s: candidate %q", tc.name, v.Candidate)
		}
	}
}
