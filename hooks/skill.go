package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sepad/sepad/prompt"
)

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
				if root = prompt.RepoRoot(cwd); root != "" {
					s.Project = NormalizePath(root, goos)
				}
			}
		}
	}
	if !opts.NoFiles {
		f.instructions(s, cwd, opts)
		if f.event == evSessionStart {
			s.PluginPrompts = prompt.PluginSnapshot(claudeDir(opts))
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
		home, _ = os.UserHomeDir()
	}
	cfg := claudeDir(opts)
	p, content, ok := prompt.Resolve(name, agent, cwd, root, home, cfg)
	var pl prompt.Plugin
	switch {
	case ok && !agent && !strings.Contains(name, ":"):
		// A user skill may be a skills-dir plugin's own SKILL.md.
		pl, _ = prompt.SkillsDirPlugin(cfg, p)
	case !ok:
		plugin, bare, scoped := prompt.SplitScope(name)
		if !scoped {
			plugin, bare = "", name
		}
		pl, p, content, ok = prompt.ResolvePlugin(plugin, bare, agent, cfg)
		if ok && !scoped {
			// A bare name Claude Code resolved to a plugin's prompt is
			// that plugin's PLUGIN:NAME.
			s.Skill = pl.Name + ":" + name
		}
	}
	if !ok {
		return
	}
	s.SkillPath = p
	s.Plugin, s.PluginVersion = pl.Name, pl.Version
	if pl.Name == "" && prompt.LeavesProject(p, root, cfg) {
		// A cloned repository can hold a link to any file of the user's:
		// its hash would reach the store and the API. Recorded by the
		// link's path, as leading out (docs/security.md, "Roots").
		s.SkillLink, content = prompt.LinkOutside, nil
	}
	if content != nil {
		sum := sha256.Sum256(content)
		s.SkillVersion = hex.EncodeToString(sum[:6])
	}
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
