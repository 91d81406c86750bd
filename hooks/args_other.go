//go:build !linux

package hooks

import "os"

// ProcessArgs returns os.Args.
func ProcessArgs() []string { return os.Args }
