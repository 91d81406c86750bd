package main

import (
	"io"

	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/status"
)

func init() {
	register("notices", "what sepad did or would do to your prompts, not yet shown at a session start", runNotices)
}

// runNotices is `sepad notices`: the notices field of /v1/status.
func runNotices(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("notices", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageErrorf("takes no arguments")
	}
	var st status.Status
	if _, err := fetch(qf, "/v1/status", &st); err != nil {
		return err
	}
	if qf.json {
		return printIndented(stdout, map[string]any{"notices": st.Notices})
	}
	render.Notices(stdout, st.Notices)
	return nil
}
