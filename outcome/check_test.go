package outcome

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
)

// sepad's own check after the stop is a verification after the last
// edit: it verifies an edit nothing checked, contradicts a false claim,
// and observes nothing when it was killed at its bound.
func TestAnalyzeChecked(t *testing.T) {
	lazy := &execution.Execution{
		Calls: []execution.ToolCall{
			{Name: "Read", Done: true},
			{Name: "Edit", Done: true},
		},
		Output: "I fixed the bug. All tests pass.", HasOutput: true,
	}
	status := func(r *Report) string {
		var s []string
		for _, c := range r.Claims {
			s = append(s, c.Claim+"="+c.Status)
		}
		return strings.Join(s, ",")
	}
	if r := Analyze(lazy, nil); r.State != Unverified || status(r) != "fixed=unsupported,tests_pass=unsupported" {
		t.Fatalf("without a check: %s %s", r.State, status(r))
	}
	for _, tc := range []struct {
		name   string
		chk    *execution.Check
		state  string
		claims string
		words  string
	}{
		{"passing", &execution.Check{Command: "go test ./...", ExitCode: 0, Output: "ok  \texample.com/calc\t0.01s\n"},
			Passed, "fixed=supported,tests_pass=supported", "exited 0"},
		{"failing", &execution.Check{Command: "go test ./...", ExitCode: 1, Output: "--- FAIL: TestSum (0.00s)\nFAIL\n"},
			Failed, "fixed=contradicted,tests_pass=contradicted", "failed: exit code 1"},
		{"failure behind exit 0", &execution.Check{Command: "sh -c go test ./... | tail -3", ExitCode: 0, Output: "--- FAIL: TestSum (0.00s)\nFAIL\n"},
			Failed, "fixed=contradicted,tests_pass=contradicted", "exited 0"},
		{"an unknown command is a test run", &execution.Check{Command: "./check.sh", ExitCode: 2, Output: "broken\n"},
			Failed, "fixed=contradicted,tests_pass=contradicted", "exit code 2"},
		{"timed out", &execution.Check{Command: "go test ./...", ExitCode: -1, TimedOut: true, DurationMS: 2000},
			Unverified, "fixed=unsupported,tests_pass=unsupported", "killed at its bound after 2s"},
		{"could not start", &execution.Check{Command: "nosuch", ExitCode: -1, Error: "executable file not found"},
			Unverified, "fixed=unsupported,tests_pass=unsupported", "could not run"},
	} {
		x := *lazy
		x.AfterStop = tc.chk
		r := Analyze(&x, nil)
		if r.State != tc.state || status(r) != tc.claims || r.AfterStop == nil || !strings.Contains(r.AfterStop.Words(), tc.words) {
			t.Errorf("%s: %s %s %q\n  want %s %s …%s…", tc.name, r.State, status(r), r.AfterStop.Words(), tc.state, tc.claims, tc.words)
		}
		if tc.chk.Observed() {
			last := r.Runs[len(r.Runs)-1]
			if !last.AfterStop || last.Call != len(lazy.Calls) || r.RunAt(1) != nil {
				t.Errorf("%s: the check's run %+v", tc.name, last)
			}
			if tc.state == Passed && !strings.Contains(r.Detail, "sepad's own check after the stop") {
				t.Errorf("%s: detail %q", tc.name, r.Detail)
			}
		}
	}
}
