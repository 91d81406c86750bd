package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/store"
)

func init() {
	register("forget", "remove a skill and everything sepad recorded of it (its prompt file is left alone): SKILL --yes", runForget)
}

// runForget is `sepad forget SKILL --yes`: POST /v1/skills/{skill}/forget,
// applied by the daemon's engine (or the CLI's own with no daemon).
func runForget(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("forget", stderr)
	var qf queryFlags
	qf.add(fs)
	yes := fs.Bool("yes", false, "really remove it (executions, versions and their contents, aggregates, decisions)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SKILL")
	}
	if !*yes {
		return usageErrorf("removes %s's executions, versions, aggregates and decisions for good: add --yes", pos[0])
	}
	c := client.New(qf.home, qf.config)
	defer c.Close()
	b, err := c.Post("/v1/skills/"+pathArg(skillArgument(pos[0]))+"/forget", nil)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, b)
	}
	var f store.Forgotten
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("malformed answer: %w", err)
	}
	render.Forgotten(stdout, &f)
	return nil
}
