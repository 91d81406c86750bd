package main

import (
	"io"

	"github.com/sepad/sepad/hooks"
)

func init() {
	register("hook", "record one Claude Code hook event (payload on stdin); always exits 0", runHook)
}

// runHook is `sepad hook`, run by Claude Code on every hook event. It never
// fails: whatever happens it returns nil (exit 0), prints nothing on stdout
// but a SessionStart's pending notices (hooks.MainOut), and at most one
// short line on stderr.
//
// `sepad install` prefers the small sepad-hook binary (the same hooks code
// without the daemon's dependencies); this entry is the same code for a
// settings file that names sepad itself.
func runHook(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	hooks.MainOut(args, stdin, stdout, stderr)
	return nil
}
