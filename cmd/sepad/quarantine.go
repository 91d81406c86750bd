package main

import (
	"fmt"
	"io"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func init() {
	register("quarantine", "list quarantined spool lines, newest first (file, offset, reason, raw head)", runQuarantine)
}

func runQuarantine(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("quarantine", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "list `N` lines")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments")
	}
	return view(qf, stdout, fmt.Sprintf("/v1/quarantine?limit=%d", *limit), render.Quarantine)
}
