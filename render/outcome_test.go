package render

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/outcome"
	"github.com/sepad/sepad/query"
)

// TestExplainSaysTheOutcome: `sepad explain` says in plain words what the
// work came to and how the answer's claim stands against it.
func TestExplainSaysTheOutcome(t *testing.T) {
	x := &execution.Execution{HasOutput: true, Output: "Fixed Sum. All 3 tests pass.", Calls: []execution.ToolCall{
		{Name: "Bash", Command: "go test ./...", Done: true, Failed: true, Error: "Exit code 1\n--- FAIL: TestSum (0.00s)\nFAIL"},
		{Name: "Edit", Done: true},
		{Name: "Bash", Command: "go test ./... 2>&1 | tail -5", Done: true, Response: "--- FAIL: TestSum (0.00s)\nFAIL"},
	}}
	rep := outcome.Analyze(x, nil)
	e := &query.Explain{Outcome: &query.OutcomeView{Report: rep, Words: rep.Words()}}
	for _, r := range rep.Runs {
		e.Outcome.RunWords = append(e.Outcome.RunWords, outcome.RunWords(r))
	}
	var b strings.Builder
	Outcome(&b, e)
	for _, want := range []string{"outcome: failed", "claimed the tests pass; but the last test run (call 2, go test) failed: --- FAIL in the output (the exit status was hidden)",
		"call 0, go test: failed: exit code 1; failing: TestSum"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("explain lacks %q:\n%s", want, b.String())
		}
	}
}
