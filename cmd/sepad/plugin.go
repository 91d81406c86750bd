package main

import (
	"os"
	"path/filepath"

	"github.com/sepad/sepad/hooks/settings"
	"github.com/sepad/sepad/prompt"
)

// pluginEnable is one place that enables sepad's Claude Code plugin.
type pluginEnable struct {
	ID   string // sepad@MARKETPLACE
	File string // the settings file enabling it
}

// enabledSepadPlugin lists where sepad's plugin is enabled for sessions
// in project: the user's settings, the project's settings.json and
// settings.local.json (docs/claude-code.md, "Double installs").
func enabledSepadPlugin(project string) []pluginEnable {
	var files []string
	if dir, err := prompt.ConfigDir(); err == nil {
		files = append(files, filepath.Join(dir, "settings.json"))
	}
	if project != "" {
		if abs, err := filepath.Abs(project); err == nil {
			files = append(files, filepath.Join(abs, ".claude", "settings.json"), filepath.Join(abs, ".claude", "settings.local.json"))
		}
	}
	var out []pluginEnable
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, id := range settings.EnabledPlugins(b, settings.PluginName) {
			out = append(out, pluginEnable{ID: id, File: f})
		}
	}
	return out
}
