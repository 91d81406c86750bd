package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func init() {
	register("executions", "list scored executions, newest first (--skill, --version, --grade, --since)", runExecutions)
}

func runExecutions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("executions", stderr)
	var qf queryFlags
	qf.add(fs)
	skill := fs.String("skill", "", "only this `SKILL`: a name (every project), PROJECT#name or the prompt file's path")
	version := fs.String("version", "", "only this `VERSION`: vN (with --skill) or a hash prefix")
	grade := fs.String("grade", "", "only executions graded `GRADE`: A+, A, B, C, D or F")
	since := fs.String("since", "", "only executions since `WHEN`: RFC 3339 time, a date (2026-11-20) or a duration back from now (36h, 7d)")
	limit := fs.Int("limit", query.DefaultLimit, "list `N` executions")
	teamView := fs.Bool("team", false, "every machine's executions, from the team database (team.postgres; --skill takes a name)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes flags only (--skill S, …)")
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
	return view(qf, stdout, "/v1/executions?"+v.Encode(), func(w io.Writer, d *query.Executions) error {
		render.Executions(w, d.Executions)
		return nil
	})
}
