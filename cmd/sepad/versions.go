package main

import (
	"io"

	"github.com/sepad/sepad/render"
)

func init() {
	register("versions", "list a skill's versions with their aggregates and status", runVersions)
}

// runVersions is `sepad versions SKILL`: GET /v1/skills/{skill}/versions.
func runVersions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("versions", stderr)
	var qf queryFlags
	qf.add(fs)
	teamView := fs.Bool("team", false, "every machine's runs pooled, with each machine's part, from the team database (SKILL: a name or a prompt_id)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SKILL")
	}
	if *teamView {
		return teamVersions(qf, pos[0], stdout)
	}
	return view(qf, stdout, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/versions", drawn(render.Versions))
}
