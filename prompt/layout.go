package prompt

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// RootKind says which prompt files a root holds. A directory can be both
// (someone runs Claude Code in their home directory).
type RootKind uint8

// Root kinds.
const (
	// RootProject: <root>/.claude/{skills,agents,commands} and
	// <root>/CLAUDE.md (the pseudo-skill _session).
	RootProject RootKind = 1 << iota
	// RootUser: the user's home: ~/.claude/{skills,agents,commands}.
	RootUser
)

// Prompt file kinds.
const (
	KindSkill   = "skill"
	KindAgent   = "agent"
	KindCommand = "command"
	KindSession = "session"
)

// SessionName is the pseudo-skill of a project's CLAUDE.md.
const SessionName = "_session"

// File describes a prompt file found under a root.
type File struct {
	Path string `json:"path"`
	// Name is the skill, agent or command name; "_session" for CLAUDE.md.
	Name string `json:"name"`
	// Kind is skill, agent, command or session.
	Kind string `json:"kind"`
	// Project is the root for a project's files; "" for the user's home.
	Project string `json:"project,omitempty"`
	// Key is the skill key the store uses: the path, or
	// "<project>#_session" for CLAUDE.md.
	Key string `json:"key"`
}

// Classify tells whether path is a prompt file under root, and which.
// Hidden names and editor leftovers (".x.md", "#x.md#", "x.md~") are not
// prompt files.
func Classify(root, path string, kind RootKind) (File, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return File{}, false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	pf := File{Path: path, Key: path}
	if kind&RootProject != 0 {
		pf.Project = root
	}
	mdName := func(file string) (string, bool) {
		name, ok := strings.CutSuffix(file, ".md")
		return name, ok && name != "" && !hidden(name)
	}
	switch {
	case len(parts) == 1 && parts[0] == "CLAUDE.md" && kind&RootProject != 0,
		len(parts) == 1 && parts[0] == "CLAUDE.local.md" && kind&RootProject != 0,
		len(parts) == 2 && parts[0] == ".claude" && parts[1] == "CLAUDE.md":
		// Instruction files: their content is kept for rollbacks of
		// _session, whose versions come from executions (session.go).
		// .claude/CLAUDE.md is the project's, or under the home the
		// user's own CLAUDE.md.
		pf.Name, pf.Kind, pf.Key = SessionName, KindSession, root+"#"+SessionName
	case len(parts) == 4 && parts[0] == ".claude" && parts[1] == "skills" && parts[3] == "SKILL.md" && parts[2] != "" && !hidden(parts[2]):
		pf.Name, pf.Kind = parts[2], KindSkill
	case len(parts) == 3 && parts[0] == ".claude" && parts[1] == "agents":
		name, ok := mdName(parts[2])
		if !ok {
			return File{}, false
		}
		pf.Name, pf.Kind = name, KindAgent
	case len(parts) == 3 && parts[0] == ".claude" && parts[1] == "commands":
		name, ok := mdName(parts[2])
		if !ok {
			return File{}, false
		}
		pf.Name, pf.Kind = name, KindCommand
	default:
		return File{}, false
	}
	return pf, true
}

func hidden(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "#") || strings.HasSuffix(name, "~")
}

// HoldsPrompts tells whether dir, under root, is a directory that can
// hold prompt files or their directories, and so needs a watch (fsnotify
// is not recursive).
func HoldsPrompts(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	switch {
	case rel == ".":
		return true
	case parts[0] != ".claude":
		return false
	case len(parts) == 1:
		return true
	case len(parts) == 2:
		return parts[1] == "skills" || parts[1] == "agents" || parts[1] == "commands"
	case len(parts) == 3:
		return parts[1] == "skills" && !hidden(parts[2])
	}
	return false
}

// Dirs lists the existing directories under root that can hold prompt
// files or their directories (HoldsPrompts).
func Dirs(root string) []string {
	out := []string{root}
	for _, d := range []string{".claude", ".claude/skills", ".claude/agents", ".claude/commands"} {
		p := filepath.Join(root, filepath.FromSlash(d))
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	skills, _ := filepath.Glob(filepath.Join(root, ".claude", "skills", "*"))
	for _, s := range skills {
		if fi, err := os.Stat(s); err == nil && fi.IsDir() && HoldsPrompts(root, s) {
			out = append(out, s)
		}
	}
	return out
}

// ScanRoot lists the prompt files under root, sorted by path.
func ScanRoot(root string, kind RootKind) []File {
	var out []File
	globs := []string{".claude/skills/*/SKILL.md", ".claude/agents/*.md", ".claude/commands/*.md"}
	if kind&RootProject != 0 {
		globs = append(globs, "CLAUDE.md", "CLAUDE.local.md")
	}
	globs = append(globs, ".claude/CLAUDE.md")
	for _, g := range globs {
		ms, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		for _, m := range ms {
			if fi, err := os.Stat(m); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if pf, ok := Classify(root, m, kind); ok {
				out = append(out, pf)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
