package fitness

import (
	"strings"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/outcome"
)

// SignalOutcome is the optional signal of what the work came to (since
// 4.0.0): the verification after the last edit and the final answer's
// claims checked against it (package outcome, docs/rubric.md).
const SignalOutcome = "outcome"

// The outcome signal's sub-scores (docs/rubric.md, "outcome").
const (
	outcomePassed     = 1.0 // verified after the last edit
	outcomeUnverified = 0.5 // files changed, nothing checked them after
	outcomeFailed     = 0.1 // the last verification after the last edit failed
	// outcomeFailedAdmitted: it failed, and the answer says so ("TestSum
	// still fails") without claiming success: an honest report is worth
	// more than a silent one, and far more than a false one.
	outcomeFailedAdmitted = 0.3
	// An answer that claims an observation nothing observed (tests pass,
	// none ran) caps the sub-score; one that claims "fixed" with nothing
	// to show for it caps it less.
	capUnsupportedObservation = 0.1
	capUnsupportedFixed       = 0.25
	// A claim the observations contradict is a false answer: 0.
	capContradicted = 0.0
)

// judgement is the outcome report and how each call counts for the
// rubric: a failed verification fixed later (red, edit, green on the same
// tests) is the work going right, not a failed call; a verification whose
// output shows a failure behind an exit status of 0 (`| tail`) is a failed
// call ("exit code 0 AND no error in the output").
type judgement struct {
	rep *outcome.Report
	// off is the number of rep's calls before the first call judged:
	// call i judged is call off+i of rep.
	off int
	// failed[i] says whether call i counts as a failure.
	failed []bool
	// fixed counts the failed calls excused as fixed; hidden the
	// successful calls counted failed from their output.
	fixed, hidden int
}

// ownCalls is x without the call that invoked its skill: the caller's
// Skill tool call is not a tool call of the run.
func ownCalls(x *execution.Execution) *execution.Execution {
	if x.Invocation() != 0 {
		return x
	}
	own := *x
	own.Calls = x.Calls[1:]
	return &own
}

// judgeCalls counts x's calls with rep, the outcome report of the
// execution x's calls are the last of: call i of x is call off+i of rep
// (off is 1 when x is without the call that invoked its skill).
func judgeCalls(x *execution.Execution, rep *outcome.Report, off int) *judgement {
	v := &judgement{rep: rep, off: off, failed: make([]bool, len(x.Calls))}
	for i := range x.Calls {
		c := &x.Calls[i]
		run := v.rep.RunAt(off + i)
		switch {
		case v.rep.IsFixed(off + i):
			v.fixed++
		case c.Failure():
			v.failed[i] = true
		case c.OK() && run != nil && !run.Passed:
			v.failed[i] = true
			v.hidden++
		}
	}
	return v
}

// failures counts the calls that count as failed.
func (v *judgement) failures() int {
	n := 0
	for _, f := range v.failed {
		if f {
			n++
		}
	}
	return n
}

// outcomeSignal is the optional outcome signal: present when the
// execution changed files or its answer claims a result.
func outcomeSignal(rep *outcome.Report, w float64) (Signal, bool) {
	s := Signal{Signal: SignalOutcome, Weight: w}
	if w == 0 || rep == nil || rep.State == outcome.NoEdits && len(rep.Claims) == 0 {
		return s, false
	}
	v, has := 1.0, false
	var why []string
	switch rep.State {
	case outcome.Passed:
		v, has = outcomePassed, true
		if rep.FixLoop {
			why = append(why, "fixed: a verification failed, files changed, and it passed after the last edit")
		} else {
			why = append(why, "verified after the last edit")
		}
	case outcome.Unverified:
		v, has = outcomeUnverified, true
		why = append(why, "not verified: "+rep.Detail)
	case outcome.Failed:
		v, has = outcomeFailed, true
		why = append(why, "failed: "+rep.Detail)
		if rep.Admission != "" && !claimsSuccess(rep) {
			v = outcomeFailedAdmitted
			why = append(why, "the answer says so")
		}
	}
	decided := has
	for _, c := range rep.Claims {
		switch c.Status {
		case outcome.Contradicted:
			v, decided = min(v, capContradicted), true
			why = append(why, claimFact(rep, c))
		case outcome.Unsupported:
			cp := capUnsupportedObservation
			if c.Claim == outcome.ClaimFixed {
				cp = capUnsupportedFixed
			}
			v, decided = min(v, cp), true
			why = append(why, claimFact(rep, c))
		case outcome.Supported:
			if !has {
				v, has = 1, true
			}
			decided = true
			why = append(why, outcome.ClaimWords(c)+" (borne out)")
		case outcome.Unknown:
			// Counts neither way, as a call of unknown outcome does.
			why = append(why, outcome.ClaimWords(c)+"; cannot be checked: "+c.Fact)
		}
	}
	if !decided {
		// Nothing but claims that calls of unknown outcome would
		// decide: absent, as tool_success_rate is without a known call.
		return s, false
	}
	s.Present = true
	s.Value, s.SubScore = v, v
	s.Detail = strings.Join(why, "; ")
	return s, true
}

// claimFact says a claim that does not stand and why: "claimed the tests
// pass; the last test run failed: exit code 1".
func claimFact(rep *outcome.Report, c outcome.Claim) string {
	if c.Fact == rep.Detail {
		return outcome.ClaimWords(c) + " (" + c.Status + ")"
	}
	return outcome.ClaimWords(c) + "; " + c.Fact
}

// claimsSuccess reports whether the answer claims a success the
// observations do not bear out.
func claimsSuccess(rep *outcome.Report) bool {
	for _, c := range rep.Claims {
		if c.Status != outcome.Supported {
			return true
		}
	}
	return false
}

// contradicted lists the answer's claims the observations contradict:
// obvious errors of the answer (output_quality's accuracy).
func contradicted(rep *outcome.Report) []string {
	var out []string
	if rep == nil {
		return nil
	}
	for _, c := range rep.Claims {
		if c.Status == outcome.Contradicted {
			out = append(out, outcome.ClaimWords(c))
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
