package prompt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Which plugin holds a prompt file, seen from the file (the daemon's
// side; the hook resolves a name to a plugin's file in plugin.go). sepad
// never writes a plugin's files: the plugin manager owns them and an
// update replaces them (package mutation refuses them).

// pluginSearchDepth bounds the walk up from a prompt file to its
// plugin's .claude-plugin directory (a skills-dir plugin's
// skills/SUB/SKILL.md is three directories below the plugin's root).
const pluginSearchDepth = 3

// pluginLayout reports whether path is where a plugin rooted at root
// keeps a prompt: skills/…, commands/…, agents/…, or its own SKILL.md (a
// skills-dir plugin). A project that is itself a plugin keeps its own
// .claude/skills apart: those are the project's.
func pluginLayout(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	switch first {
	case "skills", "commands", "agents", "SKILL.md":
		return true
	}
	return false
}

// PluginOf reports the Claude Code plugin that holds path: a file under
// claudeDir/plugins (installed plugins' cache), or one whose directory, or
// a parent up to pluginSearchDepth levels, has a .claude-plugin/plugin.json
// (a --plugin-dir, a directory marketplace's source folder, a skills-dir
// plugin in ~/.claude/skills/NAME). name is the manifest's name, else the
// plugin directory's name.
func PluginOf(path, claudeDir string) (name string, ok bool) {
	name, _, ok = PluginRoot(path, claudeDir)
	return name, ok
}

// PluginRoot is PluginOf with the plugin's root directory ("" for a file
// of the installed plugins' cache whose root is not known).
func PluginRoot(path, claudeDir string) (name, dir string, ok bool) {
	if claudeDir != "" {
		cache := filepath.Join(filepath.Clean(claudeDir), "plugins")
		if rel, err := filepath.Rel(cache, filepath.Clean(path)); err == nil && rel != "." && filepath.IsLocal(rel) {
			name := pluginDirName(filepath.Dir(path), rel)
			var elems []string
			for p := rel; p != "."; p = filepath.Dir(p) {
				elems = append([]string{filepath.Base(p)}, elems...)
			}
			if len(elems) > 4 && elems[0] == "cache" {
				dir = filepath.Join(cache, elems[0], elems[1], elems[2], elems[3])
			}
			return name, dir, true
		}
	}
	d := filepath.Dir(filepath.Clean(path))
	for range pluginSearchDepth {
		manifest := filepath.Join(d, ".claude-plugin", "plugin.json")
		if fi, err := os.Stat(manifest); err == nil && fi.Mode().IsRegular() && pluginLayout(d, path) {
			var m struct {
				Name string `json:"name"`
			}
			if b, err := os.ReadFile(manifest); err == nil && json.Unmarshal(b, &m) == nil && m.Name != "" {
				return m.Name, d, true
			}
			return filepath.Base(d), d, true
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return "", "", false
}

// pluginDirName names the plugin of a cached file: cache/MARKET/PLUGIN/VERSION/…
func pluginDirName(dir, rel string) string {
	var elems []string
	for p := rel; p != "." && p != string(filepath.Separator); p = filepath.Dir(p) {
		elems = append([]string{filepath.Base(p)}, elems...)
	}
	// elems: cache, MARKET, PLUGIN, VERSION, …
	if len(elems) >= 3 && elems[0] == "cache" {
		return elems[2]
	}
	return filepath.Base(dir)
}
