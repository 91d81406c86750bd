package main

import (
	"fmt"
	"io"

	"github.com/sepad/sepad/doctor"
	"github.com/sepad/sepad/render"
)

func init() {
	register("doctor", "check the hook, the daemon, the files and what the Claude Code version lets sepad see", runDoctor)
}

func runDoctor(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("doctor", stderr)
	home := fs.String("home", "", "state directory `DIR` (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	project := fs.String("project", ".", "the project `DIR` whose .claude/settings*.json to check")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if n := doctor.Run(stdout, *project, *home); n > 0 {
		return &exitError{code: exitFail, err: fmt.Errorf("%s failed", render.Plural(n, "check", "checks"))}
	}
	return nil
}
