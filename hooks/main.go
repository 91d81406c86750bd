package hooks

import (
	"io"
	"strconv"
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
func Main(args []string, stdin io.Reader, stderr io.Writer) { mainWith(args, stdin, nil, stderr, nil) }

// MainOut is Main with the standard output, where a SessionStart event is
// answered with sepad's pending notices for its project (notice.go): the
// only output the hook ever prints.
func MainOut(args []string, stdin io.Reader, stdout, stderr io.Writer) {
	mainWith(args, stdin, stdout, stderr, nil)
}

// ProcessMain is Main for a process that is only the hook (sepad-hook, and
// sepad's hook path, which runs from a package init): standard input and
// error are the process's descriptors, and on Linux the state directory,
// the user's home and $CLAUDE_CONFIG_DIR come from the environment the
// process started with, read without building syscall's environment map.
// The caller exits 0 afterwards.
func ProcessMain(args []string) { mainWith(args, Stdin(), Stdout(), Stderr(), processEnv) }

// mainWith is Main; env, when not nil, resolves the directories Options
// leaves to the environment.
func mainWith(args []string, stdin io.Reader, stdout, stderr io.Writer, env func(string) string) {
	opts, help, note := parseArgs(args)
	if env != nil {
		home := env("HOME")
		if opts.UserHome == "" {
			opts.UserHome = home
		}
		if opts.ClaudeDir == "" {
			opts.ClaudeDir = claudeConfigDir(env, home)
		}
		if opts.Home == "" {
			opts.Home = homeFrom(env, home, tempDirFrom(env))
		}
	}
	if help {
		io.WriteString(stderr, usage)
		return
	}
	lookup := env
	if lookup == nil {
		lookup = getenv
	}
	if lookup("CLAUDE_CODE_EVAL_CONFINED") == "1" {
		// A `claude plugin eval` run is not real use: record nothing
		// (docs/claude-code.md, "Evals").
		drain(stdin)
		return
	}
	opts.Plugin = lookup("CLAUDE_PLUGIN_ROOT") != ""
	defer func() {
		if p := recover(); p != nil {
			note = "internal error: " + panicText(p)
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

// parseArgs reads the hook's two flags the way package flag would (-x or
// --x, "--x=v" or "--x v", "--" ends them) without importing it. A bad
// flag must not lose the event: the flags before it are kept, and note
// says what was ignored.
func parseArgs(args []string) (opts Options, help bool, note string) {
	opts.MaxField = DefaultMaxField
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break // flag stops at the first non-flag argument
		}
		name := trimPrefix(a[1:], "-")
		value, hasValue := "", false
		if k := indexByte(name, '='); k >= 0 {
			name, value, hasValue = name[:k], name[k+1:], true
		}
		switch name {
		case "h", "help":
			return opts, true, ""
		case "home", "max-field":
			if !hasValue {
				if i+1 >= len(args) {
					return opts, false, "ignoring bad flags: flag needs an argument: -" + name
				}
				i++
				value = args[i]
			}
			if name == "home" {
				opts.Home = value
				continue
			}
			n, err := strconv.ParseInt(value, 0, strconv.IntSize)
			if err != nil {
				why := "parse error"
				if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
					why = "value out of range"
				}
				return opts, false, "ignoring bad flags: invalid value " + strconv.Quote(value) + " for flag -max-field: " + why
			}
			opts.MaxField = int(n)
		default:
			return opts, false, "ignoring bad flags: flag provided but not defined: -" + name
		}
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
