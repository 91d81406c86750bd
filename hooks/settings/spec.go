package settings

import (
	"os"
	"path/filepath"
)

// HookBinary is the binary the hook runs for a sepad binary at bin: the
// small sepad-hook beside it when it is installed there, which starts
// faster on every tool call (BENCHMARKS.md), else bin itself.
func HookBinary(bin string) string {
	hb := filepath.Join(filepath.Dir(bin), "sepad-hook"+filepath.Ext(bin))
	if fi, err := os.Stat(hb); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return hb
	}
	return bin
}

// SpecFor is the handler `sepad install` writes for transport (command
// or http, with url): exec form by default, so Claude Code starts the
// binary itself rather than a shell that starts it, which halves what a
// tool call pays; a shell command line with shellForm, for Claude Code
// before 2.1.139. With http, the secret stays in $SEPA_HOME: the handler
// names it through $SEPAD_SECRET, and SessionStart, which Claude Code
// never sends to http handlers, gets the command handler.
func SpecFor(bin, transport, url string, shellForm bool) HookSpec {
	switch {
	case transport == "http":
		return HTTPSpec(url, bin)
	case shellForm:
		return HookSpec{Transport: "command", Command: CommandFor(bin)}
	}
	return ExecSpec(bin)
}
