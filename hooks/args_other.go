//go:build !linux

package hooks

import "os"

// ProcessArgs returns os.Args.
func ProcessArgs() []string { return os.Args }

// processEnv is the environment lookup ProcessMain uses: elsewhere than on
// Linux the ordinary one.
var processEnv func(string) string = nil
