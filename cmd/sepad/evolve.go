package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/render"
)

func init() {
	register("evolve", "ask the mutator (your Claude Code, or mutation.mutator) for a new version of a skill: SKILL", runEvolve)
}

// runEvolve is `sepad evolve SKILL [--strategy NAME] [--dry-run]`: POST
// /v1/skills/{skill}/evolve. The daemon (or, with none, this process)
// builds the request, runs the mutator and proposes its answer.
func runEvolve(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("evolve", stderr)
	var qf queryFlags
	qf.add(fs)
	strategy := fs.String("strategy", "", "the `STRATEGY` to use instead of choosing one (sepad strategies lists them)")
	dry := fs.Bool("dry-run", false, "print the request the mutator would get; send nothing, record nothing")
	force := fs.Bool("force", false, "evolve a stable skill (or CLAUDE.md) anyway: the other rules and limits still apply (see `sepad help evolve`)")
	verbose := fs.Bool("v", false, "also print a drawn strategy's numbers (the draw's uniform number u and each strategy's weight)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SKILL")
	}
	v := url.Values{}
	if *strategy != "" {
		if _, ok := evolve.Lookup(*strategy); !ok {
			_, err := evolve.Named(*strategy)
			return usageErrorf("%v", err)
		}
		v.Set("strategy", *strategy)
	}
	if *dry {
		v.Set("dry_run", "true")
	}
	if *force {
		v.Set("force", "1")
	}
	path := "/v1/skills/" + pathArg(skillArgument(pos[0])) + "/evolve"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	c := client.New(qf.home, qf.config)
	defer c.Close()
	if cfg, err := config.Load(config.Path(qf.config)); err == nil {
		c.SetTimeout(cfg.Mutation.MutatorTimeout + 2*time.Minute)
	}
	b, err := c.Post(path, nil)
	if here, ok := qf.here(path, err); ok {
		b, err = c.Post(here, nil)
	}
	if err != nil && !*force && strings.Contains(err.Error(), "the skill is stable") {
		// Say the way past the rule, as sepad propose does.
		return fmt.Errorf("%w; a prompt that works is left alone: add --force to evolve it anyway (see `sepad help evolve`)", err)
	}
	if err != nil {
		return err
	}
	var a evolve.Attempt
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("malformed answer: %w", err)
	}
	if qf.json {
		return printJSON(stdout, b)
	}
	if err := render.Evolve(stdout, stderr, &a, *verbose); err != nil || a.DryRun {
		return err
	}
	if !a.Applied {
		return &exitError{code: exitFail, err: errors.New("nothing was changed")}
	}
	return nil
}
