package hooks

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage: sepad hook [--home DIR] [--max-field BYTES] < payload.json
  --home DIR         state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)
  --max-field BYTES  longest JSON text kept per field, in bytes (default 65536)
`

// Main is the command `sepad hook [--home DIR] [--max-field BYTES]`, shared
// by the sepad binary and the small sepad-hook binary. args are the
// arguments after "hook". It never fails: it prints nothing on stdout, at
// most one short line on stderr, keeps the payload if at all possible, and
// reads no configuration file; the caller exits 0 whatever happens.
func Main(args []string, stdin io.Reader, stderr io.Writer) { mainWith(args, stdin, nil, stderr) }

// MainOut is Main with the standard output, where a SessionStart event is
// answered with sepad's pending notices for its project (notice.go): the
// only output the hook ever prints.
func MainOut(args []string, stdin io.Reader, stdout, stderr io.Writer) {
	mainWith(args, stdin, stdout, stderr)
}

// ProcessMain is Main for a process that is only the hook (sepad-hook, and
// sepad's hook path, which runs from a package init): standard input,
// output and error are the process's. The caller exits 0 afterwards.
func ProcessMain(args []string) { mainWith(args, os.Stdin, os.Stdout, os.Stderr) }

// mainWith is Main and MainOut.
func mainWith(args []string, stdin io.Reader, stdout, stderr io.Writer) {
	opts, help, note := parseArgs(args)
	if help {
		io.WriteString(stderr, usage)
		return
	}
	lookup := os.Getenv
	if lookup("CLAUDE_CODE_EVAL_CONFINED") == "1" {
		// A `claude plugin eval` run is not real use: record nothing
		// (docs/claude-code.md, "Evals").
		drain(stdin)
		return
	}
	opts.Plugin = lookup("CLAUDE_PLUGIN_ROOT") != ""
	defer func() {
		if p := recover(); p != nil {
			note = "internal error: " + fmt.Sprint(p)
		}
		if note != "" {
			io.WriteString(stderr, "sepad hook: "+oneLine(note, 200)+"\n")
		}
	}()
	res, herr := HandleReader(stdin, opts)
	switch {
	case herr != nil:
		note = herr.Error()
	case res.Fallback:
		note = "spool busy or unwritable; line kept in " + res.Wrote
	}
	if res.sessionStart && stdout != nil && !res.Duplicate {
		showNotices(stdout, opts.home(), res.project)
	}
}

// parseArgs reads the hook's two flags. A bad flag must not lose the
// event: the flags before it are kept, and note says what was ignored.
func parseArgs(args []string) (opts Options, help bool, note string) {
	fs := flag.NewFlagSet("sepad hook", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&opts.Home, "home", "", "state directory")
	fs.IntVar(&opts.MaxField, "max-field", DefaultMaxField, "longest JSON text kept per field, in bytes")
	switch err := fs.Parse(args); {
	case errors.Is(err, flag.ErrHelp):
		return opts, true, ""
	case err != nil:
		return opts, false, "ignoring bad flags: " + err.Error()
	}
	return opts, false, ""
}

// drain reads r to EOF (bounded), so Claude Code's write of the payload
// never meets a closed pipe.
func drain(r io.Reader) {
	buf := make([]byte, 8192)
	for n := 0; n < 64<<20; {
		m, err := r.Read(buf)
		n += m
		if err != nil || m == 0 {
			return
		}
	}
}
