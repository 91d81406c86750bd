package fitness

import (
	"fmt"

	"github.com/sepad/sepad/execution"
)

// SignalVerdict is the person's verdict on the execution's answer (since
// 3.0.0): present only when their next prompt corrected or accepted it
// (execution.ReadVerdict).
const SignalVerdict = "verdict"

// weightVerdict is the verdict's nominal weight, renormalised with the
// others like the optional signals': the person saying the answer was
// wrong is the surest outcome sepad sees, so it weighs three quarters of
// the whole SEPA rubric, and a corrected run that otherwise looks perfect
// grades D (docs/rubric.md).
const weightVerdict = 0.75

// IsOptional reports whether a signal is present only on some runs: the
// person's verdict, the outcome, a skill's checks, a label.
func IsOptional(name string) bool {
	return name == SignalVerdict || name == SignalOutcome || name == SignalChecks || name == SignalLabel
}

// verdict scores the person's verdicts on x: the share of them that
// accepted the answer (a correction 0, an acceptance 1; corrected and
// then accepted after the repair, 1/2). Absent without a verdict.
func verdict(x *execution.Execution) (Signal, bool) {
	c, a := max(x.Corrections, 0), max(x.Acceptances, 0)
	if c+a == 0 {
		return Signal{}, false
	}
	v := float64(a) / float64(c+a)
	s := Signal{Signal: SignalVerdict, Present: true, Value: v, SubScore: v, Weight: weightVerdict}
	quote := func(kind execution.Verdict) string {
		for _, r := range x.Verdicts {
			if r.Verdict == kind && r.Quote != "" {
				return fmt.Sprintf(" (%q)", r.Quote)
			}
		}
		return ""
	}
	times := func(n int) string {
		if n == 1 {
			return "once"
		}
		return fmt.Sprintf("%d times", n)
	}
	switch {
	case a == 0:
		s.Detail = "the person corrected the answer " + times(c) + quote(execution.VerdictCorrection)
	case c == 0:
		s.Detail = "the person accepted the answer" + quote(execution.VerdictAcceptance)
	default:
		s.Detail = fmt.Sprintf("the person corrected the answer %s%s and accepted it %s%s: %d of %d verdicts favourable",
			times(c), quote(execution.VerdictCorrection), times(a), quote(execution.VerdictAcceptance), a, a+c)
	}
	if x.Repairs > 0 {
		s.Detail += fmt.Sprintf("; %d repair turn(s) counted in this run", x.Repairs)
	}
	return s, true
}
