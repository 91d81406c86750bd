package fitness

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

func seedFormulaExecution() execution.Execution {
	return execution.Execution{
		Prompt:    "fix the failing test in cart.go",
		StartedAt: epoch, EndedAt: epoch.Add(60 * time.Second),
		Calls: append(append(calls(7, 2), execution.ToolCall{Name: "Bash", Done: true, Retry: true}),
			execution.ToolCall{Name: "Edit", Done: true}),
		HasOutput: true,
		Output: "## Fix\n\nThe test failed because the total ignored the discount.\n\n" +
			"- changed `cart.go`\n\n```go\ntotal := price - discount\n```\n\nNext steps: run the suite.\n",
	}
}

// TestOptionalSignals: the worked examples of docs/rubric.md ("The
// optional signals"): each present optional signal adds its nominal
// weight and every present weight is divided by the sum.
func TestOptionalSignals(t *testing.T) {
	tools := execution.Execution{Calls: calls(3, 0)}
	seed := seedFormulaExecution()
	fail := &Evidence{Score: 0, Detail: "failure 0.00 by ana"}
	succ := &Evidence{Score: 1, Detail: "success 1.00 by ana"}
	twoOfThree := &Evidence{Score: 2.0 / 3, Detail: "2/3 checks passed"}
	for _, tc := range []struct {
		name  string
		x     execution.Execution
		ex    Extra
		score float64
		rows  []string // the optional rows, in order
		eff   float64  // the last row's effective weight
	}{
		// (0.35·1 + 0.20·0.8 + 0.15·1 + 0.25·0) / 0.95
		{"tools_only_failure_label", tools, Extra{Label: fail, Weights: DefaultWeights}, 69.47, []string{SignalLabel}, 0.2632},
		// (0.66 + 0.25·1) / 0.95
		{"tools_only_success_label", tools, Extra{Label: succ, Weights: DefaultWeights}, 95.79, []string{SignalLabel}, 0.2632},
		// (0.768030 + 0.25·2/3) / 1.25
		{"seed_formula_checks", seed, Extra{Checks: twoOfThree, Weights: sepaOnly.Weights}, 74.78, []string{SignalChecks}, 0.2},
		// (0.768030 + 0.25·2/3 + 0.25·1) / 1.5
		{"seed_formula_checks_and_label", seed, Extra{Checks: twoOfThree, Label: succ, Weights: sepaOnly.Weights}, 78.98, []string{SignalChecks, SignalLabel}, 0.1667},
		// The seed edits a file and runs nothing after it: outcome 0.5,
		// (0.768030 + 0.5·0.5) / 1.5.
		{"seed_formula_outcome_unverified", seed, Extra{Weights: DefaultWeights}, 67.87, []string{SignalOutcome}, 0.3333},
		// A label alone is evidence: (0.25·1)/0.25.
		{"label_only", execution.Execution{}, Extra{Label: succ, Weights: DefaultWeights}, 100, []string{SignalLabel}, 1},
		// Weight 0: shown, changes nothing.
		{"checks_weight_0", tools, Extra{Checks: &Evidence{Score: 0}, Weights: OptionalWeights{Label: 0.25, Checks: 0}}, 94.29, []string{SignalChecks}, 0},
		// Weight 0.5: (0.66 + 0.5·0) / 1.2.
		{"label_weight_half", tools, Extra{Label: fail, Weights: OptionalWeights{Label: 0.5, Checks: 0.25}}, 55, []string{SignalLabel}, 0.4167},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ScoreWith(&tc.x, medium, tc.ex)
			if !r.Scored || r.Score != tc.score || r.Grade != GradeOf(tc.score) {
				t.Fatalf("score %v %q, want %v: %+v", r.Score, r.Grade, tc.score, r.Signals)
			}
			var rows []string
			for _, s := range r.Signals[5:] {
				rows = append(rows, s.Signal)
			}
			if !reflect.DeepEqual(rows, tc.rows) || r.Signals[len(r.Signals)-1].EffectiveWeight != tc.eff {
				t.Errorf("optional rows %v (last effective weight %v), want %v (%v)", rows, r.Signals[len(r.Signals)-1].EffectiveWeight, tc.rows, tc.eff)
			}
			sum, w := 0.0, 0.0
			for _, s := range r.Signals {
				sum += s.Contribution
				w += s.EffectiveWeight
			}
			if d := sum - r.Score; d > 0.005 || d < -0.005 {
				t.Errorf("contributions add up to %v, score %v", sum, r.Score)
			}
			if w < 0.999 || w > 1.001 {
				t.Errorf("effective weights add up to %v", w)
			}
		})
	}
}

// TestAbsentOptionalIsScoreAsBefore: without a label or checks ScoreWith
// is Score, byte for byte, on every golden execution (the five rows and
// nothing else); and WithLabel then WithLabel(nil) gives the original back.
func TestAbsentOptionalIsScoreAsBefore(t *testing.T) {
	for _, x := range []execution.Execution{seedFormulaExecution(), {Calls: calls(3, 1)}, {}, {HasOutput: true, Output: "Paris."}} {
		a, _ := json.Marshal(Score(&x, medium))
		b, _ := json.Marshal(ScoreWith(&x, medium, Extra{Weights: DefaultWeights}))
		if string(a) != string(b) {
			t.Fatalf("ScoreWith without evidence differs:\n%s\n%s", a, b)
		}
		r := Score(&x, medium)
		rows := 5
		for _, s := range r.Signals {
			if s.Signal == SignalOutcome {
				rows = 6
			}
		}
		if len(r.Signals) != rows || r.RubricVersion != RubricVersion {
			t.Errorf("rows %d rubric %s", len(r.Signals), r.RubricVersion)
		}
		l := WithLabel(r, &Evidence{Score: 0.3, Detail: "x"}, DefaultWeights)
		want := ScoreWith(&x, medium, Extra{Label: &Evidence{Score: 0.3, Detail: "x"}, Weights: DefaultWeights})
		if !reflect.DeepEqual(l, want) {
			t.Errorf("WithLabel %+v\nScoreWith %+v", l, want)
		}
		relabelled := WithLabel(l, &Evidence{Score: 1, Detail: "y"}, DefaultWeights)
		if n := len(relabelled.Signals); n != rows+1 || relabelled.Signals[rows].SubScore != 1 {
			t.Errorf("a second label adds a row: %d rows", n)
		}
		back := WithLabel(l, nil, DefaultWeights)
		c, _ := json.Marshal(back)
		if string(c) != string(a) {
			t.Errorf("label removed:\n%s\nwant\n%s", c, a)
		}
	}
}

func TestRubricFor(t *testing.T) {
	if RubricFor(DefaultWeights) != RubricVersion {
		t.Errorf("default weights: %s", RubricFor(DefaultWeights))
	}
	if got := RubricFor(OptionalWeights{Label: 0.4, Checks: 0.25, Outcome: 0.5}); got != RubricVersion+"+label=0.4,checks=0.25,outcome=0.5" {
		t.Errorf("other weights: %s", got)
	}
	// A result of another rubric keeps its score.
	x := execution.Execution{Calls: calls(3, 0)}
	r := Score(&x, medium)
	if got := WithLabel(r, &Evidence{Score: 0}, OptionalWeights{Label: 0.4, Checks: 0.25}); !reflect.DeepEqual(got, r) {
		t.Errorf("a label moved a score of another rubric: %+v", got)
	}
	old := r
	old.RubricVersion = "1.2.0"
	if got := WithLabel(old, &Evidence{Score: 0}, DefaultWeights); !reflect.DeepEqual(got, old) {
		t.Errorf("a label moved a 1.2.0 score: %+v", got)
	}
}
