package hooks

import (
	"bytes"

	"github.com/sepad/sepad/internal/sha256sum"
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

// maxPluginJSON bounds the plugin manifests and lists the hook reads.
const maxPluginJSON = 1 << 20

// pluginRef is a plugin the hook can look into.
type pluginRef struct {
	name, version, dir string
	// skillsDir is set for a skills-dir plugin (its own SKILL.md is the
	// bare skill name).
	skillsDir bool
}

// pluginPrompt resolves the skill, command or agent name of plugin p.
func pluginPrompt(p pluginRef, name string, agent bool) (string, []byte, bool) {
	if !validSkillName(name) {
		return "", nil, false
	}
	if agent {
		root := joinPath(p.dir, "agents")
		return readPrompt(root, joinPath(root, name+".md"))
	}
	skills := joinPath(p.dir, "skills")
	if f, c, ok := readPrompt(skills, joinPath(skills, name, "SKILL.md")); ok {
		return f, c, true
	}
	if p.skillsDir {
		return "", nil, false // a skills-dir plugin is a skill: no commands
	}
	commands := joinPath(p.dir, "commands")
	return readPrompt(commands, joinPath(commands, name+".md"))
}

// resolvePlugin resolves PLUGIN:NAME (scoped) or a bare NAME (the only
// plugin prompt of that name) among the plugins the session can load.
func resolvePlugin(plugin, name string, agent bool, cfg string) (ref pluginRef, p string, content []byte, ok bool) {
	var found int
	for _, pl := range sessionPlugins(cfg) {
		if plugin != "" && pl.name != plugin {
			continue
		}
		var f string
		var c []byte
		var hit bool
		if pl.skillsDir && plugin == "" && !agent {
			continue // its bare skill is a user skill, resolved as such
		}
		f, c, hit = pluginPrompt(pl, name, agent)
		if !hit {
			if plugin != "" {
				return pluginRef{}, "", nil, false // the first plugin of that name is the one loaded
			}
			continue
		}
		if plugin != "" {
			return pl, f, c, true
		}
		found++
		if found > 1 {
			return pluginRef{}, "", nil, false // ambiguous bare name
		}
		ref, p, content, ok = pl, f, c, true
	}
	return ref, p, content, ok
}

// sessionPlugins lists the plugins the session that runs the hook can
// load, in the order of the package comment.
func sessionPlugins(cfg string) []pluginRef {
	var out []pluginRef
	for _, d := range parentPluginDirs() {
		name, version := pluginManifest(d)
		if name == "" {
			name = baseName(d)
		}
		out = append(out, pluginRef{name: name, version: version, dir: d})
	}
	if cfg == "" {
		return out
	}
	out = append(out, installedPlugins(cfg)...)
	skills := joinPath(cfg, "skills")
	names, err := readDirNames(skills)
	if err != nil {
		return out
	}
	for _, n := range names {
		d := joinPath(skills, n)
		if _, ok := statRegular(joinPath(d, ".claude-plugin", "plugin.json")); !ok {
			continue
		}
		_, version := pluginManifest(d)
		out = append(out, pluginRef{name: n, version: version, dir: d, skillsDir: true})
	}
	return out
}

// skillsDirPlugin reports the skills-dir plugin whose own SKILL.md is
// file, when file is cfg/skills/NAME/SKILL.md of such a plugin.
func skillsDirPlugin(cfg, file string) (pluginRef, bool) {
	d := dirPath(file)
	if cfg == "" || dirPath(d) != joinPath(cfg, "skills") {
		return pluginRef{}, false
	}
	if _, ok := statRegular(joinPath(d, ".claude-plugin", "plugin.json")); !ok {
		return pluginRef{}, false
	}
	_, version := pluginManifest(d)
	return pluginRef{name: baseName(d), version: version, dir: d, skillsDir: true}, true
}

// pluginManifest reads the name and version of dir/.claude-plugin/plugin.json.
func pluginManifest(dir string) (name, version string) {
	b := readJSONFile(joinPath(dir, ".claude-plugin", "plugin.json"))
	eachMember(b, func(k string, v []byte) {
		switch k {
		case "name":
			jsonString(v, &name)
		case "version":
			jsonString(v, &version)
		}
	})
	return name, version
}

// installedPlugins reads cfg/plugins/installed_plugins.json.
func installedPlugins(cfg string) []pluginRef {
	dir := joinPath(cfg, "plugins")
	b := readJSONFile(joinPath(dir, "installed_plugins.json"))
	if b == nil {
		return nil
	}
	var markets []byte // known_marketplaces.json, read when needed
	var out []pluginRef
	eachMember(b, func(k string, v []byte) {
		if k != "plugins" {
			return
		}
		eachMember(v, func(id string, entries []byte) {
			name, market, _ := cut(id, "@")
			var install, version string
			eachElement(entries, func(e []byte) {
				if install != "" {
					return
				}
				eachMember(e, func(k string, v []byte) {
					switch k {
					case "installPath":
						jsonString(v, &install)
					case "version":
						jsonString(v, &version)
					}
				})
			})
			if install == "" {
				return
			}
			ref := pluginRef{name: name, version: version, dir: install}
			if markets == nil {
				markets = readJSONFile(joinPath(dir, "known_marketplaces.json"))
				if markets == nil {
					markets = []byte{}
				}
			}
			if src := directorySource(markets, market, name); src != "" {
				ref.dir = src
				if _, v := pluginManifest(src); v != "" {
					ref.version = v
				}
			}
			out = append(out, ref)
		})
	})
	return out
}

// directorySource returns the source folder of plugin name in the
// directory marketplace market ("" when market is not a directory
// marketplace or does not list the plugin with a relative source).
func directorySource(markets []byte, market, name string) string {
	var loc string
	eachMember(markets, func(k string, v []byte) {
		if k != market {
			return
		}
		var kind, path, install string
		eachMember(v, func(k string, v []byte) {
			switch k {
			case "source":
				eachMember(v, func(k string, v []byte) {
					switch k {
					case "source":
						jsonString(v, &kind)
					case "path":
						jsonString(v, &path)
					}
				})
			case "installLocation":
				jsonString(v, &install)
			}
		})
		if kind != "directory" {
			return
		}
		loc = install
		if loc == "" {
			loc = path
		}
	})
	if loc == "" || !isAbsPath(loc) {
		return ""
	}
	var src string
	eachMember(readJSONFile(joinPath(loc, ".claude-plugin", "marketplace.json")), func(k string, v []byte) {
		if k != "plugins" {
			return
		}
		eachElement(v, func(e []byte) {
			var n, s string
			eachMember(e, func(k string, v []byte) {
				switch k {
				case "name":
					jsonString(v, &n)
				case "source":
					jsonString(v, &s)
				}
			})
			if n == name && src == "" && s != "" {
				src = s
			}
		})
	})
	if src == "" || isAbsPath(src) {
		return ""
	}
	d := joinPath(loc, fromSlash(src))
	if d != loc && !within(loc, d) {
		return ""
	}
	return d
}

// readJSONFile reads a small JSON file; nil when it cannot be read.
func readJSONFile(p string) []byte {
	if _, ok := statRegular(p); !ok {
		return nil
	}
	b, err := readFile(p, maxPluginJSON)
	if err != nil || int64(len(b)) >= maxPluginJSON {
		return nil
	}
	return compactJSON(b)
}

// compactJSON checks that b is one JSON object and returns it compact
// (the hook's walker, nothing cut), or nil: the readers below assume
// valid JSON, and these files are written by other programs and people.
func compactJSON(b []byte) []byte {
	w := walker{in: b, max: maxPluginJSON, out: make([]byte, 0, len(b)+16)}
	if w.document() != "" {
		return nil
	}
	return w.out
}

// jsonString sets *dst to the JSON string v ("" when v is not one).
func jsonString(v []byte, dst *string) {
	*dst = ""
	v = bytes.TrimSpace(v)
	if jsonKind(v) == '"' {
		jsonUnquote(v, dst)
	}
}

// eachElement calls fn with each element of the JSON array arr.
func eachElement(arr []byte, fn func(v []byte)) {
	i := skipWS(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = skipWS(arr, i+1)
	for i < len(arr) && arr[i] != ']' {
		e := skipValue(arr, i, false)
		if e <= i {
			return
		}
		fn(arr[i:e])
		i = skipWS(arr, e)
		if i < len(arr) && arr[i] == ',' {
			i = skipWS(arr, i+1)
		} else {
			return
		}
	}
}

// baseName is the last element of a cleaned path.
func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}

// maxSnapshotFiles bounds the plugin prompts hashed at SessionStart.
const maxSnapshotFiles = 512

// promptHash is one plugin prompt file and its version when the session
// started.
type promptHash struct{ path, version string }

// pluginSnapshot hashes the prompt files of every plugin the session
// loads (SessionStart): Claude Code does not reload a plugin's skills
// within a session, so a plugin prompt's version is its content then,
// whatever the file holds when the call comes (docs/claude-code.md,
// "Plugin skills").
func pluginSnapshot(cfg string) []promptHash {
	var out []promptHash
	add := func(root, file string) {
		if len(out) >= maxSnapshotFiles {
			return
		}
		if p, c, ok := readPrompt(root, file); ok && c != nil {
			sum := sha256sum.Sum256(c)
			out = append(out, promptHash{p, string(sha256sum.AppendHex(nil, sum[:6]))})
		}
	}
	for _, pl := range sessionPlugins(cfg) {
		if pl.skillsDir {
			add(dirPath(pl.dir), joinPath(pl.dir, "SKILL.md"))
		}
		skills := joinPath(pl.dir, "skills")
		if names, err := readDirNames(skills); err == nil {
			for _, n := range names {
				add(skills, joinPath(skills, n, "SKILL.md"))
			}
		}
		for _, sub := range []string{"commands", "agents"} {
			if pl.skillsDir {
				break
			}
			d := joinPath(pl.dir, sub)
			names, err := readDirNames(d)
			if err != nil {
				continue
			}
			for _, n := range names {
				if hasSuffix(n, ".md") {
					add(d, joinPath(d, n))
				}
			}
		}
	}
	return out
}

// appendPluginPrompts writes sepa.plugin_prompts: {"PATH":"VERSION",…}.
func appendPluginPrompts(b []byte, ps []promptHash) []byte {
	if ps == nil {
		return b
	}
	b = append(b, `,"plugin_prompts":{`...)
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, []byte(p.path))
		b = append(b, ':', '"')
		b = append(b, p.version...)
		b = append(b, '"')
	}
	return append(b, '}')
}
