package prompt

import "strings"

// splitNUL splits a /proc cmdline into its arguments.
func splitNUL(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == 0 {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	if start < len(b) {
		out = append(out, string(b[start:]))
	}
	return out
}

// pluginDirArgs returns the values of --plugin-dir (as "--plugin-dir D"
// or "--plugin-dir=D", repeatable) in a command line, up to a "--".
func pluginDirArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--plugin-dir="); ok {
			if v != "" {
				out = append(out, v)
			}
			continue
		}
		if a == "--plugin-dir" && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
		}
	}
	return out
}

// isShell reports whether a program name is a POSIX shell.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "zsh", "ash", "ksh", "busybox":
		return true
	}
	return false
}
