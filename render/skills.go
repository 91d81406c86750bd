package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/query"
)

// The tables of one skill (`sepad versions`, `sepad history`) and of its
// executions (`sepad executions`, `sepad sessions`), and the strategies'.

// Versions writes `sepad versions SKILL`: one row per version.
func Versions(w io.Writer, doc *query.SkillVersions) {
	fmt.Fprintf(w, "%s (%s)  %s\n", query.DisplayName(doc.Skill.Name), OrDash(doc.Skill.Project), query.DisplayKey(doc.Skill.Key))
	tw := Table(w)
	fmt.Fprintln(tw, "VERSION\tHASH\tSTATUS\tN\tAGGREGATE\tGRADE\tCOMPARED\tTOKENS/RUN\tFIRST SEEN")
	for _, r := range doc.Versions {
		v := fmt.Sprintf("v%d", r.Version)
		if r.Current {
			v += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", v, r.Hash, Status(&r), r.N, Score(r.Aggregate),
			Grade(r.Grade), Compared(&r), Tokens(r.Tokens, r.TokenChange), TimePtr(r.FirstSeen))
	}
	tw.Flush()
	Pending(w, doc.Versions)
	Models(w, doc.Versions, true)
	Evals(w, doc.Versions)
	Activation(w, doc.Versions, true, nil)
	fmt.Fprintln(w, "* = the version in the file now; COMPARED = its aggregate minus that of the version named: the baseline")
	fmt.Fprintln(w, "its decision compared it with (`sepad decisions`), else the last earlier version not rejected or rolled back")
}

// Executions writes `sepad executions`: one row per execution.
func Executions(w io.Writer, xs []query.ExecRow) {
	if len(xs) == 0 {
		fmt.Fprintln(w, "no executions match")
		return
	}
	pl := projectLabels(xs, func(x *query.ExecRow) string { return x.Project })
	tw := Table(w)
	fmt.Fprintln(tw, "TIME\tEXECUTION\tSKILL\tPROJECT\tVERSION\tSCORE\tGRADE\tCALLS\tFAILED\tDURATION")
	for _, x := range xs {
		skill := query.DisplayName(x.Skill)
		if !x.Complete {
			skill += " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", Time(x.Time), x.ID, skill, pl[x.Project],
			Version(x.Version, x.Hash), Score(x.Score), Grade(x.Grade), x.Calls, x.Failed, DurationMS(x.DurationMS))
	}
	tw.Flush()
}

// History writes `sepad history SKILL`: a sparkline of the scores, then
// the executions grouped by version.
func History(w io.Writer, h *query.History) {
	fmt.Fprintf(w, "%s (%s)  %s\n", query.DisplayName(h.Skill.Name), OrDash(h.Skill.Project), query.DisplayKey(h.Skill.Key))
	vers := Plural(len(h.Versions), "version", "versions")
	switch {
	case h.Stored >= h.Total:
		fmt.Fprintf(w, "%s, newest %d shown; %s\n", Plural(h.Total, "execution", "executions"), len(h.Executions), vers)
	case h.Stored == 0:
		// sepad prune removed every one: the grades still count them.
		fmt.Fprintf(w, "%s, none still stored (removed by sepad prune; the grades keep counting them); %s\n", Plural(h.Total, "execution", "executions"), vers)
	default:
		fmt.Fprintf(w, "%s, %d still stored (sepad prune removed the others), newest %d shown; %s\n", Plural(h.Total, "execution", "executions"), h.Stored, len(h.Executions), vers)
	}
	if len(h.Executions) == 0 {
		return
	}
	// The sparkline reads oldest to newest.
	n := len(h.Executions)
	scores := make([]*float64, n)
	seqs := make([]int, n)
	for i, x := range h.Executions {
		scores[n-1-i], seqs[n-1-i] = x.Score, x.Version
	}
	fmt.Fprintf(w, "\nscores  %s\n", Sparkline(scores, seqs))
	fmt.Fprintf(w, "        oldest → newest, ▁ 0 … █ 100, · unscored, | new version\n")

	rows := map[int]*query.GradeRow{}
	for i := range h.Versions {
		rows[h.Versions[i].Version] = &h.Versions[i]
	}
	tw := Table(w)
	cur := -1
	for _, x := range h.Executions {
		if x.Version != cur {
			cur = x.Version
			fmt.Fprintln(tw)
			if r := rows[cur]; r != nil {
				tok := ""
				if r.Tokens != nil { // none read yet: no empty "-" at the end
					tok = ", " + Tokens(r.Tokens, r.TokenChange)
				}
				fmt.Fprintf(tw, "%s  %s, n %d, aggregate %s %s%s\n", Version(r.Version, r.Hash), r.Status, r.N, Score(r.Aggregate), Grade(r.Grade), tok)
			} else {
				fmt.Fprintf(tw, "%s\n", Version(x.Version, x.Hash))
			}
			fmt.Fprintln(tw, "  TIME\tEXECUTION\tSCORE\tGRADE\tCALLS\tFAILED\tDURATION\tTOKENS\tCOST")
		}
		tok, cost := "-", "-"
		if x.Usage != nil {
			tok, cost = Count(float64(x.Usage.Tokens())), ExecCost(x.Usage)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", Time(x.Time), x.ID, Score(x.Score), Grade(x.Grade), x.Calls, x.Failed, DurationMS(x.DurationMS), tok, cost)
	}
	tw.Flush()
}

// Sessions writes `sepad sessions`: the Claude Code sessions seen.
func Sessions(w io.Writer, ss []query.Session) error {
	if len(ss) == 0 {
		fmt.Fprintln(w, "no sessions yet")
		return nil
	}
	pl := projectLabels(ss, func(s *query.Session) string { return s.Project })
	tw := Table(w)
	fmt.Fprintln(tw, "SESSION\tPROJECT\tFIRST\tLAST\tEXECUTIONS\tSKILLS")
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.ID, pl[s.Project], TimePtr(s.First), TimePtr(s.Last), s.Executions, Clip(strings.Join(displayNames(s.Skills), ", "), 60))
	}
	return tw.Flush()
}

// Strategies writes `sepad strategies`: each mutation strategy's record.
func Strategies(w io.Writer, ss []evolve.StrategyStat) error {
	tw := Table(w)
	fmt.Fprintln(tw, "STRATEGY\tRISK\tUSES\tFAILED\tDECIDED\tIMPROVED\tMEAN Δ\tCOST\tWEIGHT")
	for _, s := range ss {
		delta := "-"
		if s.Decided > 0 {
			delta = fmt.Sprintf("%+.2f", s.MeanDelta)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%.2f\n", s.Strategy, s.Risk, s.Uses, s.Failed, s.Decided, s.Improvements, delta, StrategyCost(&s), s.Weight)
	}
	return tw.Flush()
}

// StrategyCost is a strategy's cost as every view marks costs: "-" when
// it was never tried, PriceUnknown when no mutator reported a cost, "≥
// $x" when some did not, else the dollars ("$0" only for a cost of zero).
func StrategyCost(s *evolve.StrategyStat) string {
	n := s.Uses + s.Failed
	if n == 0 {
		return "-"
	}
	return Cost(s.CostUSD, n-s.Priced, n)
}

// displayNames are the names people read for skill names ("CLAUDE.md"
// for "_session").
func displayNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = query.DisplayName(n)
	}
	return out
}

// Files prints a CLAUDE.md version as the text of each instruction
// file it covers, under a "==> file (hash) <==" line, as head(1) does
// for several files.
func Files(w io.Writer, doc *query.VersionContent) {
	fmt.Fprintf(w, "# %s v%d (%s): the %s its sessions loaded\n", query.DisplayName(doc.Skill.Name), doc.Version.Version, doc.Version.Hash, Plural(len(doc.Files), "instruction file", "instruction files"))
	for _, f := range doc.Files {
		fmt.Fprintf(w, "\n==> %s (%s) <==\n", f.Label, f.Hash)
		if !f.ContentKnown {
			fmt.Fprintln(w, "(sepad never read this file while it held this text: it reads a project's files once the project is installed or trusted, and the files of your Claude Code directory)")
			continue
		}
		io.WriteString(w, f.Content)
		if f.Content != "" && !strings.HasSuffix(f.Content, "\n") {
			fmt.Fprintln(w)
		}
	}
}

// Compared is a version's one comparison: "+10.59 vs v1", against its
// decision's baseline, else the version its Change is against (a team's
// row has only that); "-" when there is none.
func Compared(r *query.GradeRow) string {
	c := r.Compared
	if c == nil {
		return ChangeVs(r)
	}
	return fmt.Sprintf("%+.2f vs v%d", c.Change, c.Version)
}

// Evolve prints an evolution attempt (`sepad evolve`): its words, which
// say how the strategy was chosen, and with verbose a draw's numbers; a
// dry run's words go to stderr and the request the mutator would get to
// stdout.
func Evolve(stdout, stderr io.Writer, a *evolve.Attempt, verbose bool) error {
	draw := ""
	if d := (evolve.Choice{By: a.By, U: a.U, Weights: a.Weights}).Draw(); verbose && d != "" {
		draw = "draw: " + d + "\n"
	}
	if a.DryRun {
		fmt.Fprintf(stderr, "%s\n%s", a.Words, draw)
		_, err := io.WriteString(stdout, a.Request)
		return err
	}
	fmt.Fprintf(stdout, "%s\n%s", a.Words, draw)
	return nil
}
