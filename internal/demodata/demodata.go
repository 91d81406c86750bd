// Package demodata holds the recorded sessions `sepad demo` replays (also
// reachable as testdata/demo), embedded into the binary. They are written
// by internal/demogen:
//
//	go run ./internal/demogen -out internal/demodata/sessions
package demodata

import "embed"

// Sessions holds sessions/*.jsonl: raw Claude Code hook payloads, the
// project directory written as @PROJECT@.
//
//go:embed sessions/*.jsonl
var Sessions embed.FS
