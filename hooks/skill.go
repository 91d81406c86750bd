package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path"
	"path/filepath"
	"runtime"
	"strings"
)

// maxSkillFile bounds the prompt files Enrich hashes: a larger "skill" is
// recorded by name and path without a version.
const maxSkillFile = 4 << 20

// attribute fills sepa.project and, for events that invoke a skill,
// command or agent, sepa.skill and its prompt file.
func (f *facts) attribute(s *sepaObj, opts Options) {
	goos := opts.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	var cwd, root string // native absolute directory we may look in, its repo root
	if raw := f.cwd; raw != "" {
		norm := NormalizePath(raw, goos)
		s.Project = norm
		if goos == runtime.GOOS && !opts.NoFiles {
			if native := filepath.FromSlash(norm); filepath.IsAbs(native) {
				cwd = native
				if root = repoRoot(cwd); root != "" {
					s.Project = NormalizePath(root, goos)
				}
			}
		}
	}
	if !opts.NoFiles {
		f.instructions(s, cwd, opts)
		if f.event == evSessionStart {
			s.PluginPrompts = pluginSnapshot(claudeDir(opts))
		}
	}
	name, agent := f.invoked()
	if name == "" {
		return
	}
	s.Skill = name
	if opts.NoFiles {
		return
	}
	home := opts.UserHome
	if home == "" {
		home = userHome()
	}
	cfg := claudeDir(opts)
	p, content, ok := resolveSkill(name, agent, cwd, root, home, cfg)
	var pl pluginRef
	switch {
	case ok && !agent && !strings.Contains(name, ":"):
		// A user skill may be a skills-dir plugin's own SKILL.md.
		pl, _ = skillsDirPlugin(cfg, p)
	case !ok:
		plugin, bare, scoped := cutLast(name, ":")
		if !scoped {
			plugin, bare = "", name
		}
		pl, p, content, ok = resolvePlugin(plugin, bare, agent, cfg)
		if ok && !scoped {
			// A bare name Claude Code resolved to a plugin's prompt is
			// that plugin's PLUGIN:NAME.
			s.Skill = pl.name + ":" + name
		}
	}
	if !ok {
		return
	}
	s.SkillPath = p
	s.Plugin, s.PluginVersion = pl.name, pl.version
	if pl.name == "" && leavesProject(p, root, cfg) {
		// A cloned repository can hold a link to any file of the user's:
		// its hash would reach the store and the API. Recorded by the
		// link's path, as leading out (docs/security.md, "Roots").
		s.SkillLink, content = linkOutside, nil
	}
	if content != nil {
		sum := sha256.Sum256(content)
		s.SkillVersion = hex.EncodeToString(sum[:6])
	}
}

// linkOutside is sepa.skill_link for a prompt file that leads out of its
// project.
const linkOutside = "outside_project"

// leavesProject reports whether p, a project's prompt file, is or lies
// in a symbolic link that leads out of its project: the repository root
// (root) when p is in it, else the directory holding p's .claude. The
// user's own Claude directory (cfg) is not a project: links there are the
// user's and are followed wherever they point.
func leavesProject(p, root, cfg string) bool {
	if cfg != "" && within(cfg, p) {
		return false
	}
	project := root
	if project == "" || !within(project, p) {
		project = ""
		for d := filepath.Dir(p); filepath.Dir(d) != d; d = filepath.Dir(d) {
			if baseName(d) == ".claude" {
				project = filepath.Dir(d)
				break
			}
		}
	}
	if project == "" {
		return true // no project holds it: never hash what a link may reach
	}
	return linksOut(p, project)
}

// claudeDir is the user's Claude Code configuration directory for opts.
func claudeDir(opts Options) string {
	if opts.ClaudeDir != "" {
		return opts.ClaudeDir
	}
	home := opts.UserHome
	if home == "" {
		home = userHome()
	}
	return claudeConfigDir(getenv, home)
}

// ClaudeConfigDir returns the user's Claude Code configuration directory
// as the hook process sees it: $CLAUDE_CONFIG_DIR when set and not empty
// (cleaned, taken as given), else ~/.claude, else "" when the home
// directory is unknown too. It is internal/claudedir.Dir for the hook,
// which may not import that package (docs/architecture.md); a test keeps
// the two equal.
func ClaudeConfigDir() string { return claudeConfigDir(getenv, userHome()) }

// claudeConfigDir is ClaudeConfigDir for a given environment and home.
func claudeConfigDir(getenv func(string) string, home string) string {
	if d := getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// invoked returns the name of the skill, command or agent the event
// invokes (agent is set for subagents), as event.SkillInvocation names it.
func (f *facts) invoked() (name string, agent bool) {
	trim := func(n string) string { return strings.TrimPrefix(strings.TrimSpace(n), "/") }
	switch f.event {
	case evPreToolUse, evPostToolUse, evPostToolUseFailure:
		if f.tool != "Skill" && f.tool != "Agent" && f.tool != "Task" {
			return "", false
		}
		if f.toolInput == nil {
			return "", false
		}
		skill, command, subagent := toolInputNames(f.toolInput)
		if f.tool == "Skill" {
			n := trim(skill)
			if n == "" {
				n = trim(command)
			}
			return n, false
		}
		return strings.TrimSpace(subagent), true
	case evUserPromptSubmit:
		n, _ := slashCommand(f.prompt)
		return n, false
	case evUserPromptExpansion, evPreSkillShell:
		// A skill's own shell line names the skill whose text holds it.
		return trim(f.command), false
	case evSubagentStart:
		return strings.TrimSpace(f.agentType), true
	}
	return "", false
}

// toolInputNames returns the string values of tool_input's skill, command
// and subagent_type members ("" when absent or not strings), matching
// member names as encoding/json does (any case, the last one winning),
// since Claude Code's payloads have been read that way from the start.
func toolInputNames(in []byte) (skill, command, subagent string) {
	var v struct {
		Skill        any `json:"skill"`
		Command      any `json:"command"`
		SubagentType any `json:"subagent_type"`
	}
	if json.Unmarshal(in, &v) != nil {
		return "", "", ""
	}
	str := func(x any) string { s, _ := x.(string); return s }
	return str(v.Skill), str(v.Command), str(v.SubagentType)
}

// validSkillName reports whether name may be looked up as one path element
// under the skill roots. Anything else is recorded as given, never opened.
func validSkillName(name string) bool {
	if name == "" || len(name) > 255 || name == "." || strings.Contains(name, "..") {
		return false
	}
	for _, r := range name {
		if r == '/' || r == '\\' || r == ':' || r < 0x20 || r == 0x7f || r == 0xFFFD {
			return false
		}
	}
	return true
}

// NormalizePath puts a directory from a payload (cwd) into the form sepad
// records and matches, so one project has one name whichever way the
// payload spelled it:
//
//   - surrounding white space is trimmed and a `\\?\` prefix dropped;
//   - a drive path (`C:\Users\ana`, `c:/Users/ana/`) becomes `C:/Users/ana`
//     on every OS: upper-case drive letter, forward slashes, cleaned;
//   - when goos is "windows", an MSYS or Git Bash path (`/c/Users/ana`) or a
//     Cygwin path (`/cygdrive/c/Users/ana`) becomes `C:/Users/ana` too, and
//     a UNC path `\\host\share\x` becomes `//host/share/x`;
//   - any other path is cleaned with the rules of goos (forward slashes
//     for windows).
//
// On other OSes `/c/Users` is an ordinary path and is left alone.
func NormalizePath(p, goos string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimPrefix(p, `\\?\`)
	if p == "" {
		return ""
	}
	drive := func(letter byte, rest string) string {
		if letter >= 'a' && letter <= 'z' {
			letter -= 'a' - 'A'
		}
		rest = strings.ReplaceAll(rest, `\`, "/")
		return string(letter) + ":" + path.Clean("/"+rest)
	}
	isLetter := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	if len(p) >= 2 && isLetter(p[0]) && p[1] == ':' && (len(p) == 2 || p[2] == '\\' || p[2] == '/') {
		return drive(p[0], p[2:])
	}
	if goos != "windows" {
		if strings.Contains(p, `\`) && !strings.Contains(p, "/") {
			// A relative Windows path seen on another OS: compare it with
			// forward slashes like the drive paths above.
			return path.Clean(strings.ReplaceAll(p, `\`, "/"))
		}
		return path.Clean(p)
	}
	s := strings.ReplaceAll(p, `\`, "/")
	if rest, ok := strings.CutPrefix(s, "/cygdrive/"); ok && len(rest) >= 1 && isLetter(rest[0]) && (len(rest) == 1 || rest[1] == '/') {
		return drive(rest[0], rest[1:])
	}
	if len(s) >= 2 && s[0] == '/' && s[1] != '/' && isLetter(s[1]) && (len(s) == 2 || s[2] == '/') {
		return drive(s[1], s[2:])
	}
	if strings.HasPrefix(s, "//") {
		return "/" + path.Clean(s[1:])
	}
	return path.Clean(s)
}
