package render

import (
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/scoring"
)

// ScoreTable is `sepad score`'s table: one row per execution with the
// points each signal gave, with explain every signal of every execution
// in words, then the count, the rubric and the lines skipped.
func ScoreTable(w io.Writer, rep *scoring.Report, explain bool) {
	tw := tabwriter.NewWriter(TrimTrailing(w), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EXECUTION\tSKILL\tPROJECT\tCALLS\tFAILED\tERRORS\tTOOLS/35\tOUTPUT/25\tEFFIC/20\tERRRATE/15\tSTRUCT/5\tOUTCOME\tSCORE\tGRADE")
	cols := []string{fitness.SignalToolSuccess, fitness.SignalOutput, fitness.SignalEfficiency, fitness.SignalErrorRate, fitness.SignalStructure, fitness.SignalOutcome}
	for _, x := range rep.Executions {
		skill := query.DisplayName(x.Skill) // CLAUDE.md, not _session
		if !x.Complete {
			skill += " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t", x.ID, skill, shortProject(x.Project), x.ToolCalls, x.ToolFailures, x.Errors)
		// One cell per column, by signal name: the points each signal
		// gave ("-" when absent; label and checks only in --explain).
		for _, name := range cols {
			cell := "-"
			for _, s := range x.Signals {
				if s.Signal == name && s.Present {
					cell = fmt.Sprintf("%.2f", s.Contribution)
				}
			}
			fmt.Fprint(tw, cell+"\t")
		}
		if x.Scored {
			fmt.Fprintf(tw, "%.2f\t%s\n", *x.Score, x.Grade)
		} else {
			fmt.Fprint(tw, "unscored\t-\n")
		}
	}
	tw.Flush()
	if explain {
		for _, x := range rep.Executions {
			fmt.Fprintf(w, "\n%s %s", x.ID, query.DisplayName(x.Skill))
			if x.Scored {
				fmt.Fprintf(w, ": %.2f %s (%s)", *x.Score, x.Grade, fitness.Grade(x.Grade).Advice())
			}
			fmt.Fprintln(w)
			for _, s := range x.Signals {
				if !s.Present {
					fmt.Fprintf(w, "  %-18s absent                      %s\n", s.Signal, s.Detail)
					continue
				}
				fmt.Fprintf(w, "  %-18s %5.2f × %4.2f = %6.2f pts  %s\n", s.Signal, s.SubScore, s.EffectiveWeight, s.Contribution, s.Detail)
			}
		}
	}
	fmt.Fprintf(w, "\n%s, rubric %s", Plural(len(rep.Executions), "execution", "executions"), rep.RubricVersion)
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, ", %s skipped:\n", Plural(len(rep.Skipped), "line", "lines"))
		for _, s := range rep.Skipped {
			fmt.Fprintf(w, "  %s:%d: %s\n", s.File, s.Line, s.Reason)
		}
	} else {
		fmt.Fprintln(w)
	}
}

func shortProject(p string) string {
	if p == "" {
		return "-"
	}
	return filepath.Base(p)
}
