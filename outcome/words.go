package outcome

import (
	"fmt"
	"strings"
)

// ClaimWords says a claim in plain words: "claimed the tests pass".
func ClaimWords(c Claim) string {
	switch c.Claim {
	case ClaimTestsPass:
		return "claimed the tests pass"
	case ClaimBuilds:
		return "claimed the build succeeds"
	case ClaimFixed:
		return "claimed it is fixed"
	case ClaimDeployed:
		return "claimed it is deployed"
	}
	return "claimed " + c.Claim
}

// Words says the report in plain sentences, for `sepad explain` and the
// dashboard: what the verification came to, then each claim against it
// ("claimed the tests pass; but the last test run (call 3, go test)
// failed: exit code 1").
func (r *Report) Words() []string {
	if r == nil {
		return nil
	}
	var out []string
	switch r.State {
	case Passed:
		if r.FixLoop {
			out = append(out, "fixed and verified: a verification failed, files were changed, and it passed after the last edit ("+r.Detail+")")
		} else {
			out = append(out, "verified: "+r.Detail)
		}
	case Failed:
		out = append(out, "failed: "+r.Detail)
	case Unverified:
		out = append(out, "not verified: "+r.Detail)
	default:
		out = append(out, r.Detail)
	}
	if r.AfterStop != nil && !r.AfterStop.Observed() {
		out = append(out, r.AfterStop.Words())
	}
	if r.Admission != "" {
		out = append(out, fmt.Sprintf("the answer says the work failed: %q", r.Admission))
	}
	for _, c := range r.Claims {
		switch c.Status {
		case Contradicted:
			out = append(out, ClaimWords(c)+"; but "+c.Fact)
		case Unsupported:
			out = append(out, ClaimWords(c)+"; nothing observed shows it: "+c.Fact)
		case Unknown:
			out = append(out, ClaimWords(c)+"; cannot be checked: "+c.Fact)
		default:
			out = append(out, ClaimWords(c)+"; borne out: "+c.Fact)
		}
	}
	return out
}

// RunWords says one verification run: "call 3, go test: failed (exit
// code 1)".
func RunWords(run Run) string {
	s := runWords(&run) + ": " + resultWords(&run)
	if len(run.FailedTests) > 0 {
		s += "; failing: " + strings.Join(run.FailedTests, ", ")
	}
	return s
}
