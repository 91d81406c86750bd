package render

import (
	"fmt"
	"io"

	"github.com/sepad/sepad/evals"
)

// Evidence is one recorded eval suite run: its summary, each case, and
// the version it was recorded for.
func Evidence(w io.Writer, e *evals.Evidence) {
	fmt.Fprintf(w, "%s %s: %s\n", e.Skill, e.Version, e.Summary())
	for _, c := range e.Cases {
		mark := "pass"
		if !c.Passed {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %-4s %-24s %.2f over %s", mark, c.Name, c.Score, Plural(c.Runs, "run", "runs"))
		if c.Delta != nil {
			fmt.Fprintf(w, ", %+.2f against no skill", *c.Delta)
		}
		fmt.Fprintln(w)
	}
	if e.SkillKey != "" {
		fmt.Fprintf(w, "recorded as evidence for %s (threshold %.2f, cost %s)\n", e.Version, e.Threshold, USD(e.CostUSD))
	}
}
