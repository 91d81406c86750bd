package outcome

import (
	"fmt"
	"strings"
	"time"

	"github.com/sepad/sepad/execution"
)

// Check is a verification sepad ran itself in the execution's project
// when it ended (outcome.after_stop, docs/outcome.md "Checking for
// yourself"): an observation of the project as the execution left it,
// not a call of the run. The command comes only from the configuration.
type Check struct {
	// Command is the configured words, joined with spaces; Dir where it
	// ran.
	Command string `json:"command"`
	Dir     string `json:"dir"`
	// ExitCode is the command's exit status (-1 when it was killed or
	// could not start).
	ExitCode int `json:"exit_code"`
	// Output is what it printed (stdout and stderr, interleaved), bounded
	// by outcome.after_stop.max_output while it runs and kept in the
	// report as an excerpt.
	Output string `json:"output,omitempty"`
	// Truncated says the output was longer than the bound.
	Truncated bool `json:"truncated,omitempty"`
	// TimedOut: killed at outcome.after_stop.timeout; such a run observed
	// nothing and verifies nothing.
	TimedOut bool `json:"timed_out,omitempty"`
	// Error says why it could not run (no such command), "" when it ran.
	Error      string    `json:"error,omitempty"`
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
}

// Observed reports whether the check ran to its end: only then does it
// say anything about the work.
func (c *Check) Observed() bool { return c != nil && !c.TimedOut && c.Error == "" }

// Words says what the check was and came to, for explain.
func (c *Check) Words() string {
	switch {
	case c == nil:
		return ""
	case c.Error != "":
		return fmt.Sprintf("sepad's own check (%s) could not run: %s", c.Command, c.Error)
	case c.TimedOut:
		return fmt.Sprintf("sepad's own check (%s) was killed at its bound after %s: it verified nothing", c.Command, time.Duration(c.DurationMS)*time.Millisecond)
	case c.ExitCode != 0:
		return fmt.Sprintf("sepad's own check (%s) failed: exit code %d", c.Command, c.ExitCode)
	}
	return fmt.Sprintf("sepad's own check (%s) exited 0", c.Command)
}

// maxCheckExcerpt bounds the output kept in a report.
const maxCheckExcerpt = 2048

// AnalyzeChecked is Analyze with the result of sepad's own check after
// the execution (nil: none): a check that ran to its end is the last
// verification run, after every call and so after the last edit; it is
// read like a Bash call (the runner recognised from the command, a test
// run otherwise; the result from the exit status and the output).
func AnalyzeChecked(x *execution.Execution, r *Rules, chk *Check) *Report {
	rep := analyze(x, r, chk)
	if chk != nil {
		kept := *chk
		kept.Output = excerpt(kept.Output, maxCheckExcerpt)
		rep.AfterStop = &kept
	}
	return rep
}

// checkRun reads an observed check as a run placed after call n-1.
func checkRun(chk *Check, n int, r *Rules) Run {
	c := execution.ToolCall{Name: "Bash", Done: true, Command: chk.Command, Response: chk.Output}
	if chk.ExitCode != 0 {
		c.Failed = true
		c.Error = fmt.Sprintf("Exit code %d\n%s", chk.ExitCode, chk.Output)
	}
	m, masked, ok := recogniseLine(chk.Command, r)
	if !ok {
		m = match{kind: KindTest, runner: chk.Command}
	}
	run := Run{Call: n, Kind: m.kind, Runner: m.runner, Masked: masked, filter: m.filter, AfterStop: true}
	if m.filter != nil {
		run.Selection = m.filter.Text
	}
	run.Passed, run.Vacuous, run.Why, run.FailedTests = readResult(&c, masked)
	return run
}

// excerpt keeps the first quarter and the last three quarters of n bytes
// of s, where runners print their summaries.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := n / 4
	return strings.ToValidUTF8(s[:head], "") + "\n…\n" + strings.ToValidUTF8(s[len(s)-(n-head):], "")
}
