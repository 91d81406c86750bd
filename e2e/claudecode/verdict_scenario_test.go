package claudecode

import (
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// The person's verdict on the real client (issue 32 item 3): the lazy
// fix-tests version edits blindly and claims the tests pass; the person
// answers "that's wrong, the tests still fail"; Claude repairs it in the
// next turn (runs the tests, fixes, reruns: they pass); the person says
// "thanks, works". The correction, the repair and the acceptance are the
// skill's execution, not the session's.
func init() {
	scenarios = append(scenarios, scenario{
		name: "verdict_repair",
		run: func(e *env) {
			e.sumProject("outcome_lazy")
			e.API.Set("verdict", fakeclaude.Script{
				// The skill's turn: no test run, a wrong edit, a claim.
				{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
				{Tools: []fakeclaude.Tool{e.read("sum.go")}},
				{Tools: []fakeclaude.Tool{e.edit("sum.go", sumWrongOld, sumWrongNew)}},
				{Text: "## Summary\n\nFixed the off-by-one in `Sum`.\n\n- All tests pass"},
				// The repair, after the person's correction.
				{Tools: []fakeclaude.Tool{bash(goTestAll)}},
				{Tools: []fakeclaude.Tool{e.edit("sum.go", sumWrongNew, sumWrongOld)}},
				{Tools: []fakeclaude.Tool{e.edit("sum.go", sumBug, sumFix)}},
				{Tools: []fakeclaude.Tool{bash(goTestAll)}},
				{Text: "You are right: I had not run them. `go test ./...` failed on TestSum; Sum skipped the first element. I start the loop at 0 now, and `go test ./...` passes."},
				// After the acceptance.
				{Text: "Glad it works."},
			})
			e.streamTurns([]string{
				"run the tests and fix what fails @@verdict@@",
				"that's wrong, the tests still fail",
				"thanks, works",
			})
			if ok, out := e.goTestPasses(); !ok {
				e.t.Errorf("after the repair go test fails:\n%s", out)
			}
		},
		check: func(t *testing.T, v string, xs []scored) {
			x := one(t, xs, "fix-tests")
			if x.Corrections != 1 || x.Acceptances != 1 || x.Repairs != 1 || !x.Complete || !x.HasOutput {
				t.Errorf("fix-tests: the verdicts did not land on the skill's execution: %+v", x)
			}
			// Read, Edit, then the repair's go test (fails), two Edits,
			// go test (passes); the Skill call may be counted.
			if x.ToolCalls < 6 || x.ToolCalls > 7 || x.ToolFailures < 1 {
				t.Errorf("fix-tests: %d calls, %d failures: the repair is not in it\n%s", x.ToolCalls, x.ToolFailures, dump(xs))
			}
			for _, s := range bySkill(xs, "_session") {
				if s.ToolCalls != 0 || s.Corrections != 0 {
					t.Errorf("the repair or the verdict went to _session: %+v", s)
				}
			}
			// Corrected then accepted: the verdict is 1/2 and the
			// run grades below the B its polish alone would get.
			if x.Score >= 80 {
				t.Errorf("fix-tests scored %v with a correction", x.Score)
			}
		},
	})
}
