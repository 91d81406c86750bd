package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sepad/sepad/render/words"
	"github.com/sepad/sepad/validity"
)

// Validity writes `sepad validity`: per rubric version,
// one line per signal with n, the AUC and the verdict.
func Validity(w io.Writer, r *validity.Report) error {
	if len(r.Groups) == 0 {
		who := "any skill's"
		if r.Skill != "" {
			who = r.Skill + "'s"
		}
		_, err := fmt.Fprintf(w, "No verdicts on %s executions yet: label some (`sepad label ID success|failure`), run an eval suite, or correct an answer.\n", who)
		return err
	}
	who := "every skill"
	if r.Skill != "" {
		who = r.Skill
	}
	for i, g := range r.Groups {
		if i > 0 {
			fmt.Fprintln(w)
		}
		cur := ""
		if g.Rubric == r.Current {
			cur = " (current)"
		}
		fmt.Fprintf(w, "Rubric %s%s, %s: %s with a verdict (%s)\n", g.Rubric, cur, who, Plural(g.N, "execution", "executions"), verdictSources(g.Sources))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SIGNAL\tN\tSUCCESS/FAIL\tAUC\tMEAN S/F\tVERDICT")
		for _, row := range g.Rows {
			auc := "-"
			if row.AUC != nil {
				auc = fmt.Sprintf("%.2f", *row.AUC)
				if row.SE != nil {
					auc += fmt.Sprintf(" ±%.2f", 2**row.SE)
				}
			}
			fmt.Fprintf(tw, "%s\t%d\t%d/%d\t%s\t%s/%s\t%s\n", words.SignalLabel(row.Signal), row.N, row.Successes, row.Failures, auc,
				meanText(row.MeanSuccess, row.Signal), meanText(row.MeanFailure, row.Signal), row.Verdict)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\nAUC: the chance a run judged a success scores above one judged a failure (0.50 says nothing; ± two standard errors).\n")
	return err
}

func meanText(m *float64, signal string) string {
	if m == nil {
		return "-"
	}
	if signal == validity.Total {
		return fmt.Sprintf("%.1f", *m)
	}
	return fmt.Sprintf("%.2f", *m)
}

func verdictSources(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}
