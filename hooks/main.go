package hooks

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Main is the command `sepad hook [--home DIR] [--max-field BYTES]`, shared
// by the sepad binary and the small sepad-hook binary. args are the
// arguments after "hook". It never fails: it prints nothing on stdout, at
// most one short line on stderr, keeps the payload if at all possible, and
// reads no configuration file; the caller exits 0 whatever happens.
func Main(args []string, stdin io.Reader, stderr io.Writer) {
	fs := flag.NewFlagSet("sepad hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var opts Options
	fs.StringVar(&opts.Home, "home", "", "state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.IntVar(&opts.MaxField, "max-field", DefaultMaxField, "longest JSON text kept per field, in bytes")
	var note string
	if perr := fs.Parse(args); perr != nil {
		if perr == flag.ErrHelp {
			fs.SetOutput(stderr)
			fmt.Fprintln(stderr, "usage: sepad hook [--home DIR] [--max-field BYTES] < payload.json")
			fs.PrintDefaults()
			return
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
	}()
	res, herr := HandleReader(stdin, opts)
	switch {
	case herr != nil:
		note = herr.Error()
	case res.Fallback:
		note = "spool busy or unwritable; line kept in " + res.Wrote
	}
}

// oneLine flattens s to one line of at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
