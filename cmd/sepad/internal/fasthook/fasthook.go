// Package fasthook runs `sepad hook` from a package init, before the rest
// of the sepad binary initialises, and exits.
//
// Claude Code starts `sepad hook` on every tool call and waits for it. Go
// runs every package's init before main, and the daemon's dependencies
// (client_golang, goldmark, protobuf, net/http) spend milliseconds there.
// Go initialises packages in import-path order as soon as their imports
// are ready, so this package, imported by main and needing only package
// hooks, runs before most of them: GODEBUG=inittrace=1 shows which still
// come first. The command itself is hooks.ProcessMain, the same code as
// cmd/sepad-hook and, through hooks.Main, the in-process `sepad hook` of
// the tests.
package fasthook

import (
	"os"

	"github.com/sepad/sepad/hooks"
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		hooks.ProcessMain(os.Args[2:])
		os.Exit(0)
	}
}
