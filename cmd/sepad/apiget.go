package main

import (
	"io"
	"strings"
)

func init() {
	register("api", "GET one local API path (docs/api.md) from the daemon, or from the database when none runs", runAPIGet)
}

// runAPIGet is `sepad api PATH`: the raw JSON of any endpoint, through the
// same client as the other query commands, for scripts and for checking
// that both paths answer alike.
func runAPIGet(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("api", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || !strings.HasPrefix(pos[0], "/") {
		return usageErrorf("takes one PATH starting with /")
	}
	if strings.HasPrefix(pos[0], "/metrics") {
		return usageErrorf("/metrics is served by the daemon only: curl it on --http")
	}
	var doc any
	body, err := fetch(qf, pos[0], &doc)
	if err != nil {
		return err
	}
	return printJSON(stdout, body)
}
