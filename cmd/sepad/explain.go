package main

import (
	"errors"
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func init() {
	register("explain", "explain one execution's score: its tool calls, signals and place in the aggregate", runExplain)
}

func runExplain(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain", stderr)
	var qf queryFlags
	qf.add(fs)
	skill := fs.String("skill", "", "with last: the newest execution of this `SKILL` (as in sepad label last --skill)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("takes one EXECUTION_ID or last (see sepad executions)")
	}
	id := "last"
	if len(pos) == 1 {
		id = pos[0]
	}
	if id == "last" {
		// The newest execution, as `sepad executions --limit 1` lists it
		// (the plugin's /sepad:explain with no argument).
		v := url.Values{"limit": {"1"}}
		if *skill != "" {
			v.Set("skill", skillArgument(*skill))
		}
		var list query.Executions
		if _, err := fetch(qf, "/v1/executions?"+v.Encode(), &list); err != nil {
			return err
		}
		if len(list.Executions) == 0 {
			// One prefix: main prints "sepad explain: " before it.
			if *skill != "" {
				return fmt.Errorf("%w for %s", errNoExecutions, *skill)
			}
			return errNoExecutions
		}
		id = list.Executions[0].ID
	}
	return view(qf, stdout, "/v1/executions/"+pathArg(id), drawn(render.Explain))
}

// errNoExecutions: `explain last` with nothing recorded yet.
var errNoExecutions = errors.New("no execution recorded yet")
