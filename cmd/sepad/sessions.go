package main

import (
	"fmt"
	"io"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func init() {
	register("sessions", "Claude Code sessions seen, most recent first", runSessions)
}

func runSessions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("sessions", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "list `N` sessions")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments")
	}
	return view(qf, stdout, fmt.Sprintf("/v1/sessions?limit=%d", *limit), func(w io.Writer, d *query.Sessions) error { return render.Sessions(w, d.Sessions) })
}
