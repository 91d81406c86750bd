package main

import (
	"fmt"
	"io"
	"net/url"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

func init() {
	register("history", "a skill's executions over time, per version, with a sparkline of scores", runHistory)
}

func runHistory(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "newest executions to show")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad history SKILL [--limit N] [--json]")
		fmt.Fprintln(stderr, "SKILL is a name, PROJECT#name, or the prompt file's path; a name used in several projects must be qualified.")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("history takes one SKILL")
	}
	v := url.Values{"limit": {fmt.Sprint(*limit)}}
	var doc query.History
	body, err := fetch(qf, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/history?"+v.Encode(), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	printHistory(stdout, &doc)
	return nil
}

func printHistory(w io.Writer, h *query.History) {
	fmt.Fprintf(w, "%s (%s)  %s\n", h.Skill.Name, orDash(h.Skill.Project), h.Skill.Key)
	fmt.Fprintf(w, "%d executions, newest %d shown; %d versions\n", h.Total, len(h.Executions), len(h.Versions))
	if len(h.Executions) == 0 {
		return
	}
	// The sparkline reads oldest to newest.
	n := len(h.Executions)
	scores := make([]*float64, n)
	vers := make([]int, n)
	for i, x := range h.Executions {
		scores[n-1-i], vers[n-1-i] = x.Score, x.Version
	}
	fmt.Fprintf(w, "\nscores  %s\n", sparkline(scores, vers))
	fmt.Fprintf(w, "        oldest → newest, ▁ 0 … █ 100, · unscored, | new version\n")

	rows := map[int]*query.GradeRow{}
	for i := range h.Versions {
		rows[h.Versions[i].Version] = &h.Versions[i]
	}
	tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
	cur := -1
	for _, x := range h.Executions {
		if x.Version != cur {
			cur = x.Version
			fmt.Fprintln(tw)
			if r := rows[cur]; r != nil {
				fmt.Fprintf(tw, "%s  %s, n %d, aggregate %s %s, %s\n", fmtVersion(r.Version, r.Hash), r.Status, r.N, fmtScore(r.Aggregate), fmtGrade(r.Grade), fmtTokens(r.Tokens, r.TokenChange))
			} else {
				fmt.Fprintf(tw, "%s\n", fmtVersion(x.Version, x.Hash))
			}
			fmt.Fprintln(tw, "  TIME\tEXECUTION\tSCORE\tGRADE\tCALLS\tFAILED\tDURATION\tTOKENS\tCOST")
		}
		tok, cost := "-", "-"
		if x.Usage != nil {
			tok, cost = fmtCount(float64(x.Usage.Tokens())), execCost(x.Usage)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", fmtTime(x.Time), x.ID, fmtScore(x.Score), fmtGrade(x.Grade), x.Calls, x.Failed, fmtDurationMS(x.DurationMS), tok, cost)
	}
	tw.Flush()
}
