package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
)

func init() {
	register("propose", "hand in a mutator's new text for a skill: SKILL FILE", runPropose)
}

// runPropose is `sepad propose SKILL FILE`: POST
// /v1/skills/{skill}/propose?strategy=NAME with the text as the body.
func runPropose(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("propose", stderr)
	var qf queryFlags
	qf.add(fs)
	strategy := fs.String("strategy", "", "the mutation `STRATEGY`, recorded with the proposal")
	force := fs.Bool("force", false, "propose to a stable skill anyway (the other checks still apply; see `sepad help propose`)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("takes a SKILL and a FILE with the new text (- for stdin)")
	}
	var text []byte
	if pos[1] == "-" {
		text, err = io.ReadAll(stdin)
	} else {
		text, err = os.ReadFile(pos[1])
	}
	if err != nil {
		return fmt.Errorf("read the proposal: %w", err)
	}
	path := "/v1/skills/" + pathArg(skillArgument(pos[0])) + "/propose"
	v := url.Values{}
	if *strategy != "" {
		v.Set("strategy", *strategy)
	}
	if *force {
		v.Set("force", "1")
	}
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	err = write(qf, path, text, stdout)
	if err != nil && !*force && strings.Contains(err.Error(), "the skill is stable") {
		// Say the way past the rule (sepad help propose explains it).
		return fmt.Errorf("%w; a skill that works is left alone: add --force to propose anyway (see `sepad help propose`)", err)
	}
	return err
}
