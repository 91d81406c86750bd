package prompt

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
)

// Plugin prompts (docs/claude-code.md, "Plugin skills"). A skill, command
// or agent of a plugin is invoked as PLUGIN:NAME (or by its bare NAME
// when nothing else has it). No payload names the plugin's directory or
// version: the hook finds them where Claude Code loads plugins from, in
// this order:
//
//  1. --plugin-dir DIR on the command line of the Claude Code process that
//     started the hook (Linux: /proc; elsewhere not seen);
//  2. installed plugins, ~/.claude/plugins/installed_plugins.json
//     ("NAME@MARKETPLACE"): a directory marketplace's plugin is read from
//     its source folder (known_marketplaces.json's installLocation plus
//     the plugin's source in its marketplace.json), any other from its
//     installPath (the cache copy);
//  3. skills-dir plugins, ~/.claude/skills/NAME/ with a
//     .claude-plugin/plugin.json: its SKILL.md is the bare skill NAME, its
//     skills/SUB/SKILL.md the skill NAME:SUB.
//
// Within a plugin directory: skills/NAME/SKILL.md, then commands/NAME.md
// (agents: agents/NAME.md). Custom component paths in plugin.json are not
// followed.

// maxPluginJSON bounds the plugin manifests and lists read.
const maxPluginJSON = 1 << 20

// Plugin is a plugin the hook can look into.
type Plugin struct {
	// Name and Version are the manifest's (Name else the directory's
	// name); Dir is where its prompt files are read.
	Name, Version, Dir string
	// SkillsDir is set for a skills-dir plugin (its own SKILL.md is the
	// bare skill name).
	SkillsDir bool
}

// pluginPrompt resolves the skill, command or agent name of plugin p.
func pluginPrompt(p Plugin, name string, agent bool) (string, []byte, bool) {
	if !ValidName(name) {
		return "", nil, false
	}
	if agent {
		root := filepath.Join(p.Dir, "agents")
		return readPrompt(root, filepath.Join(root, name+".md"))
	}
	skills := filepath.Join(p.Dir, "skills")
	if f, c, ok := readPrompt(skills, filepath.Join(skills, name, "SKILL.md")); ok {
		return f, c, true
	}
	if p.SkillsDir {
		return "", nil, false // a skills-dir plugin is a skill: no commands
	}
	commands := filepath.Join(p.Dir, "commands")
	return readPrompt(commands, filepath.Join(commands, name+".md"))
}

// ResolvePlugin resolves PLUGIN:NAME (scoped: plugin is PLUGIN) or a bare
// NAME (plugin is ""; the only plugin prompt of that name) among the
// plugins the session can load (the package comment's order), cfg being
// the user's Claude Code directory.
func ResolvePlugin(plugin, name string, agent bool, cfg string) (ref Plugin, p string, content []byte, ok bool) {
	var found int
	for _, pl := range sessionPlugins(cfg) {
		if plugin != "" && pl.Name != plugin {
			continue
		}
		var f string
		var c []byte
		var hit bool
		if pl.SkillsDir && plugin == "" && !agent {
			continue // its bare skill is a user skill, resolved as such
		}
		f, c, hit = pluginPrompt(pl, name, agent)
		if !hit {
			if plugin != "" {
				return Plugin{}, "", nil, false // the first plugin of that name is the one loaded
			}
			continue
		}
		if plugin != "" {
			return pl, f, c, true
		}
		found++
		if found > 1 {
			return Plugin{}, "", nil, false // ambiguous bare name
		}
		ref, p, content, ok = pl, f, c, true
	}
	return ref, p, content, ok
}

// sessionPlugins lists the plugins the session that runs the hook can
// load, in the order of the package comment.
func sessionPlugins(cfg string) []Plugin {
	var out []Plugin
	for _, d := range parentPluginDirs() {
		name, version := pluginManifest(d)
		if name == "" {
			name = baseName(d)
		}
		out = append(out, Plugin{Name: name, Version: version, Dir: d})
	}
	if cfg == "" {
		return out
	}
	out = append(out, installedPlugins(cfg)...)
	skills := filepath.Join(cfg, "skills")
	names, err := readDirNames(skills)
	if err != nil {
		return out
	}
	for _, n := range names {
		d := filepath.Join(skills, n)
		if !isRegular(filepath.Join(d, ".claude-plugin", "plugin.json")) {
			continue
		}
		_, version := pluginManifest(d)
		out = append(out, Plugin{Name: n, Version: version, Dir: d, SkillsDir: true})
	}
	return out
}

// SkillsDirPlugin reports the skills-dir plugin whose own SKILL.md is
// file, when file is cfg/skills/NAME/SKILL.md of such a plugin.
func SkillsDirPlugin(cfg, file string) (Plugin, bool) {
	d := filepath.Dir(file)
	if cfg == "" || filepath.Dir(d) != filepath.Join(cfg, "skills") {
		return Plugin{}, false
	}
	if !isRegular(filepath.Join(d, ".claude-plugin", "plugin.json")) {
		return Plugin{}, false
	}
	_, version := pluginManifest(d)
	return Plugin{Name: baseName(d), Version: version, Dir: d, SkillsDir: true}, true
}

// pluginManifest reads the name and version of dir/.claude-plugin/plugin.json.
func pluginManifest(dir string) (name, version string) {
	var m struct{ Name, Version string }
	readJSONFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), &m)
	return m.Name, m.Version
}

// installedPlugins reads cfg/plugins/installed_plugins.json.
func installedPlugins(cfg string) []Plugin {
	dir := filepath.Join(cfg, "plugins")
	var installed struct {
		Plugins map[string][]struct {
			InstallPath string `json:"installPath"`
			Version     string `json:"version"`
		} `json:"plugins"`
	}
	if !readJSONFile(filepath.Join(dir, "installed_plugins.json"), &installed) {
		return nil
	}
	var markets map[string]marketplace // known_marketplaces.json, read when needed
	ids := make([]string, 0, len(installed.Plugins))
	for id := range installed.Plugins {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []Plugin
	for _, id := range ids {
		name, market, _ := strings.Cut(id, "@")
		var install, version string
		for _, e := range installed.Plugins[id] {
			if e.InstallPath != "" {
				install, version = e.InstallPath, e.Version
				break
			}
		}
		if install == "" {
			continue
		}
		ref := Plugin{Name: name, Version: version, Dir: install}
		if markets == nil {
			markets = map[string]marketplace{}
			readJSONFile(filepath.Join(dir, "known_marketplaces.json"), &markets)
		}
		if src := directorySource(markets[market], name); src != "" {
			ref.Dir = src
			if _, v := pluginManifest(src); v != "" {
				ref.Version = v
			}
		}
		out = append(out, ref)
	}
	return out
}

// marketplace is an entry of known_marketplaces.json.
type marketplace struct {
	Source struct {
		Source string `json:"source"`
		Path   string `json:"path"`
	} `json:"source"`
	InstallLocation string `json:"installLocation"`
}

// directorySource returns the source folder of plugin name in the
// marketplace m ("" when m is not a directory marketplace or does not
// list the plugin with a relative source inside it).
func directorySource(m marketplace, name string) string {
	if m.Source.Source != "directory" {
		return ""
	}
	loc := m.InstallLocation
	if loc == "" {
		loc = m.Source.Path
	}
	if loc == "" || !filepath.IsAbs(loc) {
		return ""
	}
	var manifest struct {
		Plugins []struct {
			Name   string `json:"name"`
			Source any    `json:"source"`
		} `json:"plugins"`
	}
	readJSONFile(filepath.Join(loc, ".claude-plugin", "marketplace.json"), &manifest)
	var src string
	for _, p := range manifest.Plugins {
		if s, ok := p.Source.(string); ok && p.Name == name && s != "" {
			src = s
			break
		}
	}
	if src == "" || filepath.IsAbs(src) {
		return ""
	}
	d := filepath.Join(loc, filepath.FromSlash(src))
	if d != loc && !within(loc, d) {
		return ""
	}
	return d
}

// readJSONFile decodes a small JSON file into v and reports whether it
// could: these files are written by other programs and people, so any
// failure just means "nothing there".
func readJSONFile(p string, v any) bool {
	if !isRegular(p) {
		return false
	}
	b, err := readFile(p, maxPluginJSON)
	if err != nil || int64(len(b)) >= maxPluginJSON {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// baseName is the last element of a path, whichever separator it uses
// (a Windows path in a payload is read on any system).
func baseName(p string) string { return p[strings.LastIndexAny(p, `/\`)+1:] }

// maxSnapshotFiles bounds the plugin prompts hashed at SessionStart.
const maxSnapshotFiles = 512

// PluginSnapshot hashes the prompt files of every plugin the session
// loads (SessionStart): Claude Code does not reload a plugin's skills
// within a session, so a plugin prompt's version is its content then,
// whatever the file holds when the call comes (docs/claude-code.md,
// "Plugin skills").
//
// It returns the version of each file by path (nil when there is none).
func PluginSnapshot(cfg string) map[string]string {
	var out map[string]string
	add := func(root, file string) {
		if len(out) >= maxSnapshotFiles {
			return
		}
		if p, c, ok := readPrompt(root, file); ok && c != nil {
			sum := sha256.Sum256(c)
			if out == nil {
				out = map[string]string{}
			}
			out[p] = hex.EncodeToString(sum[:6])
		}
	}
	for _, pl := range sessionPlugins(cfg) {
		if pl.SkillsDir {
			add(filepath.Dir(pl.Dir), filepath.Join(pl.Dir, "SKILL.md"))
		}
		skills := filepath.Join(pl.Dir, "skills")
		if names, err := readDirNames(skills); err == nil {
			for _, n := range names {
				add(skills, filepath.Join(skills, n, "SKILL.md"))
			}
		}
		for _, sub := range []string{"commands", "agents"} {
			if pl.SkillsDir {
				break
			}
			d := filepath.Join(pl.Dir, sub)
			names, err := readDirNames(d)
			if err != nil {
				continue
			}
			for _, n := range names {
				if strings.HasSuffix(n, ".md") {
					add(d, filepath.Join(d, n))
				}
			}
		}
	}
	return out
}
