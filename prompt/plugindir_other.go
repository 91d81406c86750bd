//go:build !linux

package prompt

// parentPluginDirs: only Linux shows the hook its parent's command line
// (/proc); elsewhere --plugin-dir plugins are not resolved.
func parentPluginDirs() []string { return nil }
