package hooks

import _ "unsafe" // go:linkname

// The command line and the environment as the runtime received them. Both
// symbols are the runtime's own exports to packages os and syscall
// (runtime/runtime.go marks them with go:linkname, which is what lets a
// package outside the standard library name them since Go 1.23); if a Go
// release withdrew them the build would fail, never the hook. They spare
// the hook package os (whose init is most of a hook process's cost beyond
// the runtime's), a read of /proc/self/cmdline, and the map syscall.Getenv
// builds of the whole environment on first use.

//go:linkname runtimeArgs os.runtime_args
func runtimeArgs() []string

//go:linkname runtimeEnvs syscall.runtime_envs
func runtimeEnvs() []string

// ProcessArgs returns the command line, as os.Args holds it, without
// importing package os.
func ProcessArgs() []string { return runtimeArgs() }

// startupGetenv looks key up in the environment the process started with,
// with syscall.Getenv's rules (the first KEY=value wins; an empty key, or
// one holding '=', finds nothing). Unlike syscall.Getenv it does not see
// os.Setenv: only ProcessMain, which runs before anything could call it,
// uses it.
func startupGetenv(key string) string {
	if key == "" || indexByte(key, '=') >= 0 {
		return ""
	}
	for _, kv := range runtimeEnvs() {
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:]
		}
	}
	return ""
}

// processEnv is the environment lookup ProcessMain uses.
var processEnv = startupGetenv
