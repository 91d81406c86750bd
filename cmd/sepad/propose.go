package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
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
	strategy := fs.String("strategy", "", "name of the mutation strategy, recorded with the proposal")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("propose takes a SKILL and a FILE with the new text (- for stdin)")
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
	if *strategy != "" {
		path += "?" + url.Values{"strategy": {*strategy}}.Encode()
	}
	return write(qf, path, text, stdout)
}
