package main

import (
	"io"
	"net/url"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/render"
)

func init() {
	register("strategies", "mutation strategies: uses, improvements and mean delta [SKILL]", runStrategies)
}

// runStrategies is `sepad strategies [SKILL]`: GET /v1/strategies.
func runStrategies(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("strategies", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("takes at most one SKILL")
	}
	path := "/v1/strategies"
	if len(pos) == 1 {
		path += "?" + url.Values{"skill": {skillArgument(pos[0])}}.Encode()
	}
	return view(qf, stdout, path, func(w io.Writer, d *api.StrategiesView) error { return render.Strategies(w, d.Strategies) })
}
