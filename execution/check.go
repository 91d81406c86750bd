package execution

import (
	"fmt"
	"time"
)

// MaxCheckOutput bounds the output of a Check kept with an execution:
// the first quarter and the last three quarters, where runners print
// their summaries.
const MaxCheckOutput = 4096

// Check is a verification sepad ran itself in the execution's project
// when its turn ended (outcome.after_stop, package afterstop,
// docs/outcome.md "Checking for yourself"): an observation of the
// project as the execution left it, not a call of the run, stored with
// the execution so that every reading of its outcome sees it. The
// command comes only from the configuration.
type Check struct {
	// Command is the configured words, joined with spaces; Dir where it
	// ran.
	Command string `json:"command"`
	Dir     string `json:"dir"`
	// ExitCode is the command's exit status (-1 when it was killed or
	// could not start).
	ExitCode int `json:"exit_code"`
	// Output is what it printed (stdout and stderr, interleaved): bounded
	// by outcome.after_stop.max_output while it runs, an excerpt of at
	// most MaxCheckOutput bytes once attached to the execution.
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
