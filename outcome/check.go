package outcome

import (
	"fmt"

	"github.com/sepad/sepad/execution"
)

// checkRun reads sepad's own check after the execution (an observed
// execution.Check) as a run placed after call n-1: recognised from its
// command like a Bash call (a test run otherwise), its result read from
// the exit status and the output.
func checkRun(chk *execution.Check, n int, r *Rules) Run {
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
