package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/sepad/sepad/hooks"
)

func init() {
	register("hook", "record one Claude Code hook event (payload on stdin); always exits 0", runHook)
}

// runHook is `sepad hook`, run by Claude Code on every hook event. It
// never fails: whatever happens it returns nil (exit 0), prints nothing on
// stdout and at most one short line on stderr, and keeps the payload if at
// all possible. It reads no configuration file.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	fs := flag.NewFlagSet("sepad hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts hooks.Options
	fs.StringVar(&opts.Home, "home", "", "state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.IntVar(&opts.MaxField, "max-field", hooks.DefaultMaxField, "longest JSON text kept per field, in bytes")
	var note string
	if perr := fs.Parse(args); perr != nil {
		if perr == flag.ErrHelp {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, "usage: sepad hook [--home DIR] [--max-field BYTES] < payload.json")
			fs.PrintDefaults()
			return nil
		}
		// Bad flags must not lose the event: record it with the flags
		// parsed before the bad one (--home stays honoured) and defaults.
		note = "ignoring bad flags: " + perr.Error()
	}
	defer func() {
		if p := recover(); p != nil {
			note = fmt.Sprintf("internal error: %v", p)
		}
		if note != "" {
			fmt.Fprintln(stderr, "sepad hook: "+oneLine(note, 200))
		}
		err = nil
	}()
	res, herr := hooks.HandleReader(stdin, opts)
	switch {
	case herr != nil:
		note = herr.Error()
	case res.Fallback:
		note = "spool busy or unwritable; line kept in " + res.Wrote
	}
	return nil
}

// oneLine flattens s to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
