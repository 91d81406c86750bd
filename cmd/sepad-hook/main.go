// Command sepad-hook is `sepad hook` alone: the same code (hooks.HandleReader)
// in a binary that links only package hooks, so that Claude Code pays for a
// small program's start on every tool call instead of the whole sepad's.
// `sepad install` uses it when it sits next to the sepad binary (go install
// github.com/sepad/sepad/cmd/...@latest installs both).
//
//	sepad-hook hook    # the payload on stdin; $SEPA_HOME selects the spool
//
// Like `sepad hook` it always exits 0, never writes to stdout, and writes at
// most one short line to stderr.
package main

import (
	"os"

	"github.com/sepad/sepad/hooks"
)

func main() {
	if _, err := hooks.HandleReader(os.Stdin, hooks.Options{}); err != nil {
		msg := err.Error()
		if len(msg) > 200 {
			msg = msg[:200]
		}
		os.Stderr.WriteString("sepad-hook: " + msg + "\n")
	}
	os.Exit(0)
}
