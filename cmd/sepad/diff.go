package main

import (
	"io"
	"net/url"

	"github.com/sepad/sepad/render"
)

func init() {
	register("diff", "compare two versions of a skill: SKILL A B", runDiff)
}

// runDiff is `sepad diff SKILL A B`: GET /v1/skills/{skill}/diff?from=A&to=B,
// printed as a unified diff.
func runDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("diff", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usageErrorf("takes a SKILL and two versions (vN or a hash), e.g. sepad diff deploy v1 v2")
	}
	v := url.Values{"from": {pos[1]}, "to": {pos[2]}}
	return view(qf, stdout, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/diff?"+v.Encode(), drawn(render.Diff))
}
