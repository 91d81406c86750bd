package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func init() {
	register("decisions", "list decisions, rollbacks and conflicts [SKILL]", runDecisions)
}

// runDecisions is `sepad decisions [SKILL]`: GET /v1/decisions.
func runDecisions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("decisions", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "show the `N` newest decisions")
	verbose := fs.Bool("v", false, "also show each record's rule id and the test's statistics")
	teamView := fs.Bool("team", false, "the team's decisions on pooled runs, from the team database (SKILL: a name or a prompt_id)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("takes at most one SKILL")
	}
	if *teamView {
		skill := ""
		if len(pos) == 1 {
			skill = pos[0]
		}
		return teamDecisions(qf, skill, *limit, stdout)
	}
	v := url.Values{"limit": {fmt.Sprint(*limit)}}
	if len(pos) == 1 {
		v.Set("skill", skillArgument(pos[0]))
	}
	return view(qf, stdout, "/v1/decisions?"+v.Encode(), func(w io.Writer, d *query.Decisions) error {
		render.Decisions(w, d.Decisions, *verbose)
		return nil
	})
}
