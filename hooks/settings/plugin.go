package settings

import (
	"os"
	"path/filepath"
)

// PluginEnable is one place that enables sepad's Claude Code plugin.
type PluginEnable struct {
	ID   string // sepad@MARKETPLACE
	File string // the settings file enabling it
}

// SepadPluginEnabled lists where sepad's plugin is enabled for sessions
// in project: the user's settings (configDir, "" when unknown), the
// project's settings.json and settings.local.json (docs/claude-code.md,
// "Double installs").
func SepadPluginEnabled(configDir, project string) []PluginEnable {
	var files []string
	if configDir != "" {
		files = append(files, filepath.Join(configDir, "settings.json"))
	}
	if project != "" {
		if abs, err := filepath.Abs(project); err == nil {
			files = append(files, filepath.Join(abs, ".claude", "settings.json"), filepath.Join(abs, ".claude", "settings.local.json"))
		}
	}
	var out []PluginEnable
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, id := range EnabledPlugins(b, PluginName) {
			out = append(out, PluginEnable{ID: id, File: f})
		}
	}
	return out
}
