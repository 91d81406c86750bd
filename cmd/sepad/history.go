package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func init() {
	register("history", "a skill's executions over time, per version, with a sparkline of scores", runHistory)
}

func runHistory(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("history", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "show the `N` newest executions")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SKILL")
	}
	v := url.Values{"limit": {fmt.Sprint(*limit)}}
	return view(qf, stdout, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/history?"+v.Encode(), drawn(render.History))
}
