package fitness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/sepad/sepad/execution"
)

// The orderings the outcome signal exists for (docs/rubric.md, "outcome"),
// on literal executions of a "fix the failing tests" skill in
// testdata/outcome: the same task, done honestly, lazily, or lied about.
func loadOutcome(t *testing.T, name string) execution.Execution {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "outcome", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var x execution.Execution
	if err := json.Unmarshal(b, &x); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return x
}

func TestOutcomeOrderings(t *testing.T) {
	score := map[string]Result{}
	for _, n := range []string{"honest", "lazy", "never_verifies", "liar", "give_up", "tail_fixed", "tail_liar", "subset"} {
		x := loadOutcome(t, n)
		score[n] = Score(&x, medium)
		t.Logf("%-15s %6.2f %-2s  %s", n, score[n].Score, score[n].Grade, signalDetail(score[n], SignalOutcome))
	}
	above := func(a, b string) {
		t.Helper()
		if !(score[a].Score > score[b].Score) {
			t.Errorf("%s (%.2f) is not above %s (%.2f)", a, score[a].Score, b, score[b].Score)
		}
	}
	// The honest version that verifies beats one that skips verification
	// and claims success.
	above("honest", "lazy")
	// The ideal fix loop is not below a version that never verifies.
	above("honest", "never_verifies")
	// A version that gives up honestly is above one that lies.
	above("give_up", "liar")
	above("give_up", "tail_liar")
	// Output read through a pipe: the fix beats the lie.
	above("tail_fixed", "tail_liar")
	// A rerun of the tests that already passed does not verify the fix.
	above("honest", "subset")
	// A false claim of success is graded below C.
	for _, n := range []string{"liar", "tail_liar"} {
		if g := score[n].Grade; g.Rank() >= C.Rank() {
			t.Errorf("%s is graded %s (%.2f), want below C", n, g, score[n].Score)
		}
	}
	// The fix loop's first, expected failure is not a failed call, and the
	// Skill call that started the execution is not a call of the run.
	if s := signal(score["honest"], SignalToolSuccess); s.SubScore != 1 || s.Detail != "4/4 tool calls succeeded (1 failed verification fixed later, not counted)" {
		t.Errorf("honest tool success: %+v", s)
	}
	// The outcome numbers the calls as they are stored (the Skill call is
	// call 0), as explain lists them and integrity reads them.
	if o := score["tail_fixed"].Outcome; o == nil || len(o.Runs) != 2 || o.Runs[0].Call != 1 || o.Runs[1].Call != 4 || !o.IsFixed(1) || o.LastEdit != 3 {
		t.Errorf("tail_fixed outcome numbers its calls apart from the stored ones: %+v", o)
	}
	// A contradicted claim is an obvious error of the answer.
	if s := signal(score["liar"], SignalOutput); s.Detail == signal(score["give_up"], SignalOutput).Detail {
		t.Errorf("liar's output quality does not show the false claim: %s", s.Detail)
	}
}

func signalDetail(r Result, name string) string {
	for _, s := range r.Signals {
		if s.Signal == name {
			return s.Detail
		}
	}
	return "(absent)"
}

// TestSkillCallIsNotACallOfTheRun: a skill that ran no tool of its own
// has no tool calls to judge.
func TestSkillCallIsNotACallOfTheRun(t *testing.T) {
	x := execution.Execution{Kind: "skill", Skill: "s", Calls: []execution.ToolCall{{Name: "Skill", Done: true}}, HasOutput: true, Output: "Paris."}
	r := Score(&x, medium)
	if s := signal(r, SignalToolSuccess); s.Present || s.Detail != "no tool calls" {
		t.Errorf("tool success %+v", s)
	}
	// In a session or an agent, a Skill call is a call like any other.
	x.Kind = "session"
	if s := signal(Score(&x, medium), SignalToolSuccess); !s.Present {
		t.Errorf("session's Skill call not counted: %+v", s)
	}
}

// TestOutcomeOfUnknownCalls: an imported run whose edit and test run have
// no known outcome (docs/import.md) claims the tests pass: the claim
// cannot be checked, and the outcome signal is absent, as tool success
// is, instead of capping the score as an unsupported claim.
func TestOutcomeOfUnknownCalls(t *testing.T) {
	x := execution.Execution{Kind: "session", Calls: []execution.ToolCall{{Name: "Edit", Unknown: true}, {Name: "Bash", Command: "go test ./...", Unknown: true}},
		HasOutput: true, Output: "Added /healthz; all tests pass."}
	r := Score(&x, medium)
	if s, ok := find(r, SignalOutcome); ok && s.Present {
		t.Errorf("outcome present on calls of unknown outcome: %+v", s)
	}
	// The same run with the test run's result known is judged.
	x.Calls[1] = execution.ToolCall{Name: "Bash", Command: "go test ./...", Done: true}
	if s, ok := find(Score(&x, medium), SignalOutcome); !ok || !s.Present || s.Value != 1 {
		t.Errorf("outcome with a known run: %+v", s)
	}
}

// TestDeniedCallCountsNeitherWay: a call the permission layer refused
// (PermissionDenied, rubric 4.1.0) is neither a success nor a failure of
// the prompt: not in tool_success_rate, no error.
func TestDeniedCallCountsNeitherWay(t *testing.T) {
	x := execution.Execution{Kind: "session", HasOutput: true, Output: "Read the README.",
		Calls: []execution.ToolCall{{Name: "Bash", Denied: true, Done: true, Error: "Classifier unavailable"}, {Name: "Read", Done: true}}}
	r := Score(&x, medium)
	s := signal(r, SignalToolSuccess)
	if !s.Present || s.Value != 1 || s.Detail != "1/1 tool calls succeeded (1 refused by the permission rules, not counted)" {
		t.Errorf("tool success %+v", s)
	}
	if r.Errors.ToolFailures != 0 || r.Errors.Total != 0 {
		t.Errorf("errors %+v", r.Errors)
	}
	// The same call with no post event and no denial is a failure.
	x.Calls[0] = execution.ToolCall{Name: "Bash", NoPost: true}
	if s := signal(Score(&x, medium), SignalToolSuccess); s.Value != 0.5 {
		t.Errorf("unanswered call: %+v", s)
	}
	x.Calls = x.Calls[:1]
	x.Calls[0] = execution.ToolCall{Name: "Bash", Denied: true, Done: true}
	if s := signal(Score(&x, medium), SignalToolSuccess); s.Present {
		t.Errorf("only a refused call: %+v", s)
	}
}
