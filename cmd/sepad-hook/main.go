// Command sepad-hook is `sepad hook` alone: the same code
// (hooks.ProcessMain) in a binary that links only package hooks, so that
// Claude Code pays for a small program's start on every tool call instead
// of the whole sepad's. `sepad install` uses it when it sits next to the
// sepad binary (go install github.com/sepad/sepad/cmd/...@latest installs
// both).
//
//	sepad-hook [hook] [--home DIR] [--max-field BYTES]   # the payload on stdin
//
// Like `sepad hook` it always exits 0, never writes to stdout, and writes at
// most one short line to stderr. The leading "hook" is optional, so the
// command works whether Claude Code passes the settings entry's "args" or
// not.
//
// The go:debug line keeps the runtime from starting its GOMAXPROCS updater
// (Go 1.25), a goroutine and usually a thread that a process living one
// millisecond has no use for.
//
//go:debug updatemaxprocs=0
package main

import (
	"os"

	"github.com/sepad/sepad/hooks"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	hooks.ProcessMain(args)
	os.Exit(0)
}
