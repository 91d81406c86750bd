// Command sepad-hook is `sepad hook` alone: the same code (hooks.Main) in a
// binary that links only package hooks, so that Claude Code pays for a
// small program's start on every tool call instead of the whole sepad's.
// `sepad install` uses it when it sits next to the sepad binary (go install
// github.com/sepad/sepad/cmd/...@latest installs both).
//
//	sepad-hook hook [--home DIR] [--max-field BYTES]   # the payload on stdin
//
// Like `sepad hook` it always exits 0, never writes to stdout, and writes at
// most one short line to stderr. On Linux it does not link package os
// (whose initialisation is most of what a hook process costs beyond the Go
// runtime's): it reads its arguments from /proc/self/cmdline
// (hooks.ProcessArgs).
package main

import (
	"syscall"

	"github.com/sepad/sepad/hooks"
)

func main() {
	args := hooks.ProcessArgs()
	if len(args) > 0 {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	hooks.Main(args, hooks.Stdin(), hooks.Stderr())
	syscall.Exit(0)
}
