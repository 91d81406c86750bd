package main

import (
	"fmt"
	"io"
	"net/url"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

func init() {
	register("executions", "list scored executions, newest first (--skill, --version, --grade, --since)", runExecutions)
}

func runExecutions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("executions", stderr)
	var qf queryFlags
	qf.add(fs)
	skill := fs.String("skill", "", "only this skill: a name (every project), PROJECT#name or the prompt file's path")
	version := fs.String("version", "", "only this version: vN (with --skill) or a hash prefix")
	grade := fs.String("grade", "", "only executions graded A+, A, B, C, D or F")
	since := fs.String("since", "", "only executions since: RFC 3339 time, a date (2026-11-20) or a duration back from now (36h, 7d)")
	limit := fs.Int("limit", query.DefaultLimit, "executions to list")
	teamView := fs.Bool("team", false, "every machine's executions, from the team database (team.postgres; --skill takes a name)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad executions [--skill S] [--version V] [--grade G] [--since T] [--limit N] [--team] [--json]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("executions takes flags only (--skill S, …)")
	}
	if *teamView {
		if *version != "" || *grade != "" || *since != "" {
			return usageErrorf("--team takes --skill NAME and --limit only")
		}
		return teamExecutions(qf, *skill, *limit, stdout)
	}
	v := url.Values{"limit": {fmt.Sprint(*limit)}}
	for k, s := range map[string]string{"skill": skillArgument(*skill), "version": *version, "grade": *grade, "since": *since} {
		if s != "" {
			v.Set(k, s)
		}
	}
	var doc query.Executions
	body, err := fetch(qf, "/v1/executions?"+v.Encode(), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	printExecutions(stdout, doc.Executions)
	return nil
}

func printExecutions(w io.Writer, xs []query.ExecRow) {
	if len(xs) == 0 {
		fmt.Fprintln(w, "no executions match")
		return
	}
	var projects []string
	for _, x := range xs {
		projects = append(projects, x.Project)
	}
	pl := projectLabels(projects)
	tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tEXECUTION\tSKILL\tPROJECT\tVERSION\tSCORE\tGRADE\tCALLS\tFAILED\tDURATION")
	for _, x := range xs {
		skill := x.Skill
		if !x.Complete {
			skill += " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", fmtTime(x.Time), x.ID, skill, pl[x.Project],
			fmtVersion(x.Version, x.Hash), fmtScore(x.Score), fmtGrade(x.Grade), x.Calls, x.Failed, fmtDurationMS(x.DurationMS))
	}
	tw.Flush()
}
