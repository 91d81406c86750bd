package main

import (
	"io"

	"github.com/sepad/sepad/render"
)

func init() {
	register("status", "daemon, spool lag, database and counts", runStatus)
}

func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("status", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments")
	}
	return view(qf, stdout, "/v1/status", drawn(render.StatusView))
}
