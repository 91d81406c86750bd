package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/store"
)

func init() {
	register("prune", "remove executions and quarantined lines older than a time, keeping grades, versions and decisions: --before 90d --yes", runPrune)
}

// runPrune is `sepad prune --before DURATION|DATE --yes`: POST
// /v1/prune?before=..., applied by the daemon (or the CLI with no daemon).
func runPrune(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("prune", stderr)
	var qf queryFlags
	qf.add(fs)
	before := fs.String("before", "", "remove what is older than `WHEN`: a duration back from now (90d, 36h), a date (2026-01-31) or an RFC 3339 time")
	yes := fs.Bool("yes", false, "really remove it")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments")
	}
	if *before == "" {
		return usageErrorf("give --before (e.g. --before 90d)")
	}
	c := client.New(qf.home, qf.config)
	defer c.Close()
	if !*yes {
		// Say how much it would remove before asking for --yes.
		b, err := c.Post("/v1/prune?"+url.Values{"before": {*before}, "dry_run": {"1"}}.Encode(), nil)
		if err != nil {
			return err
		}
		var p store.Pruned
		if err := json.Unmarshal(b, &p); err != nil {
			return fmt.Errorf("malformed answer: %w", err)
		}
		return usageErrorf("%s", render.Pruned(&p, true))
	}
	b, err := c.Post("/v1/prune?"+url.Values{"before": {*before}}.Encode(), nil)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, b)
	}
	var p store.Pruned
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("malformed answer: %w", err)
	}
	fmt.Fprintln(stdout, render.Pruned(&p, false))
	return nil
}
