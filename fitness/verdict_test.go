package fitness

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
)

// TestVerdictSignal holds docs/rubric.md's worked examples of the
// person's verdict (rubric 3.0.0).
func TestVerdictSignal(t *testing.T) {
	tools := func(c, a, repairs int, v ...execution.VerdictRecord) execution.Execution {
		return execution.Execution{Calls: calls(3, 0), Corrections: c, Acceptances: a, Repairs: repairs, Verdicts: v}
	}
	corr := execution.VerdictRecord{Verdict: execution.VerdictCorrection, Quote: "that's wrong, the tests still fail"}
	acc := execution.VerdictRecord{Verdict: execution.VerdictAcceptance, Quote: "thanks, works"}
	for _, tc := range []struct {
		name   string
		x      execution.Execution
		score  float64
		sub    float64
		detail string
	}{
		// tools_only (Σ w·s 0.66 over 0.70, 94.29) corrected: error
		// 1 - 1/10, verdict 0: (0.35 + 0.16 + 0.15·0.9 + 0.75·0) / 1.45.
		{"corrected", tools(1, 0, 0, corr), 44.48, 0,
			`the person corrected the answer once ("that's wrong, the tests still fail")`},
		// accepted: (0.66 + 0.75·1) / 1.45.
		{"accepted", tools(0, 1, 0, acc), 97.24, 1, `the person accepted the answer ("thanks, works")`},
		// corrected, repaired, then accepted: verdict 1/2:
		// (0.35 + 0.16 + 0.135 + 0.75·0.5) / 1.45.
		{"corrected_then_accepted", tools(1, 1, 1, corr, acc), 70.34, 0.5,
			`the person corrected the answer once ("that's wrong, the tests still fail") and accepted it once ("thanks, works"): 1 of 2 verdicts favourable; 1 repair turn(s) counted in this run`},
		// no verdict: no row, the score of rubric 2.0.0.
		{"none", tools(0, 0, 0), 94.29, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Score(&tc.x, medium)
			checkInvariants(t, r)
			if r.Score != tc.score {
				t.Errorf("score %v, want %v", r.Score, tc.score)
			}
			v, ok := find(r, SignalVerdict)
			if ok != (tc.sub >= 0) {
				t.Fatalf("verdict row present %v", ok)
			}
			if !ok {
				return
			}
			if v.SubScore != tc.sub || v.Weight != 0.75 || v.Detail != tc.detail {
				t.Errorf("verdict row %+v", v)
			}
		})
	}
}

// TestCorrectedLazyBelowHonest: a run that looks perfect and is corrected
// grades below C, under the same honest run that was accepted, and
// under one nobody judged.
func TestCorrectedLazyBelowHonest(t *testing.T) {
	lazy := execution.Execution{Calls: calls(1, 0), HasOutput: true, Corrections: 1,
		Output: "## Fixed\n\n- `Sum` now adds. All tests pass because the sign was wrong.\n\nNext steps: none."}
	honest := execution.Execution{Calls: append(calls(0, 1), calls(3, 0)...), HasOutput: true,
		Output: "Ran the tests: TestSum failed, so I fixed the sign in `Sum` and reran them: they pass."}
	rl := Score(&lazy, medium)
	rh := Score(&honest, medium)
	honest.Acceptances = 1
	ra := Score(&honest, medium)
	if rl.Grade.Rank() >= C.Rank() || !(rl.Score < rh.Score && rh.Score < ra.Score) {
		t.Errorf("lazy corrected %v (%s), honest %v, honest accepted %v", rl.Score, rl.Grade, rh.Score, ra.Score)
	}
	if !strings.Contains(signal(rl, SignalVerdict).Detail, "corrected") {
		t.Errorf("detail %q", signal(rl, SignalVerdict).Detail)
	}
}
