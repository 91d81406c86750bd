package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/sepad/sepad/event"
)

// maxSkillFile bounds the prompt files Enrich hashes: a larger "skill" is
// recorded by name and path without a version.
const maxSkillFile = 4 << 20

// attribute fills sepa.project and, for events that invoke a skill,
// command or agent, sepa.skill and its prompt file.
func (w *walker) attribute(s *sepaObj, opts Options) {
	goos := opts.GOOS
	if goos == "" {
		goos = runtime.GOOS
	}
	var cwd, root string // native absolute directory we may look in, its repo root
	if raw := w.topString(topCwd); raw != "" {
		norm := NormalizePath(raw, goos)
		s.project = norm
		if goos == runtime.GOOS && !opts.NoFiles {
			if native := filepath.FromSlash(norm); filepath.IsAbs(native) {
				cwd = native
				if root = repoRoot(cwd); root != "" {
					s.project = NormalizePath(root, goos)
				}
			}
		}
	}
	name, agent := w.invoked()
	if name == "" {
		return
	}
	s.skill = name
	if opts.NoFiles || !validSkillName(name) {
		return
	}
	home := opts.UserHome
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if p, content, ok := resolveSkill(name, agent, cwd, root, home); ok {
		s.skillPath = p
		if content != nil {
			sum := sha256.Sum256(content)
			s.skillVersion = hex.EncodeToString(sum[:6])
		}
	}
}

// invoked returns the name of the skill, command or agent the event
// invokes (agent is set for subagents), as event.SkillInvocation names it.
func (w *walker) invoked() (name string, agent bool) {
	trim := func(n string) string { return strings.TrimPrefix(strings.TrimSpace(n), "/") }
	switch w.topString(topEvent) {
	case event.PreToolUse, event.PostToolUse, event.PostToolUseFailure:
		tool := w.topString(topTool)
		if tool != "Skill" && tool != "Agent" && tool != "Task" {
			return "", false
		}
		sp := w.top[topInput]
		if sp.end == 0 {
			return "", false
		}
		var in struct {
			Skill        any `json:"skill"`
			Command      any `json:"command"`
			SubagentType any `json:"subagent_type"`
		}
		if json.Unmarshal(w.out[sp.start:sp.end], &in) != nil {
			return "", false
		}
		str := func(v any) string { s, _ := v.(string); return s }
		if tool == "Skill" {
			n := trim(str(in.Skill))
			if n == "" {
				n = trim(str(in.Command))
			}
			return n, false
		}
		return strings.TrimSpace(str(in.SubagentType)), true
	case event.UserPromptSubmit:
		n, _ := event.SlashCommand(w.topString(topPrompt))
		return n, false
	case event.UserPromptExpansion:
		return trim(w.topString(topCommand)), false
	case event.SubagentStart:
		return strings.TrimSpace(w.topString(topAgentType)), true
	}
	return "", false
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

// resolveSkill finds the prompt file of name, in Claude Code's order:
// for skills and commands the user's skill, the project's skills (nearest
// directory first, up to the repo root), the user's command, the
// project's commands; for agents the project's agents (nearest first),
// then the user's, first by file name, then by frontmatter name.
// content is nil when the file is too large to hash.
func resolveSkill(name string, agent bool, cwd, root, userHome string) (p string, content []byte, ok bool) {
	var levels []string // project directories holding .claude, nearest first
	if cwd != "" {
		for d := cwd; ; d = filepath.Dir(d) {
			levels = append(levels, d)
			if root == "" || d == root || filepath.Dir(d) == d {
				break
			}
		}
	}
	type cand struct{ root, file string }
	var cs []cand
	add := func(base, sub string, file ...string) {
		if base == "" {
			return
		}
		root := filepath.Join(base, ".claude", sub)
		cs = append(cs, cand{root, filepath.Join(append([]string{root}, file...)...)})
	}
	if agent {
		for _, l := range levels {
			add(l, "agents", name+".md")
		}
		add(userHome, "agents", name+".md")
	} else {
		add(userHome, "skills", name, "SKILL.md")
		for _, l := range levels {
			add(l, "skills", name, "SKILL.md")
		}
		add(userHome, "commands", name+".md")
		for _, l := range levels {
			add(l, "commands", name+".md")
		}
	}
	for _, c := range cs {
		if p, content, ok := readPrompt(c.root, c.file); ok {
			return p, content, true
		}
	}
	if agent {
		for _, c := range cs {
			if p, content, ok := agentByFrontmatter(c.root, name); ok {
				return p, content, true
			}
		}
	}
	return "", nil, false
}

// readPrompt reads file if it lies lexically inside root and is (or links
// to) a regular file. Symbolic links placed in the roots are followed
// wherever they point: only the user can create them, and skill
// directories are often links into a dotfiles repository.
func readPrompt(root, file string) (string, []byte, bool) {
	if !within(root, file) {
		return "", nil, false
	}
	// Stat before opening: opening a FIFO would block the hook.
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return "", nil, false
	}
	f, err := os.Open(file)
	if err != nil {
		return "", nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", nil, false
	}
	if fi.Size() > maxSkillFile {
		return file, nil, true
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSkillFile+1))
	if err != nil || len(b) > maxSkillFile {
		return file, nil, true
	}
	return file, b, true
}

// within reports whether p, cleaned, lies inside root (lexically).
func within(root, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	if err != nil || filepath.IsAbs(rel) || rel == "." {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// agentByFrontmatter looks for an agent file in root whose frontmatter
// "name:" is name (agent files may be named differently from the type).
func agentByFrontmatter(root, name string) (string, []byte, bool) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return "", nil, false
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		file := filepath.Join(root, e.Name())
		if frontmatterName(file) == name {
			return readPrompt(root, file)
		}
	}
	return "", nil, false
}

// frontmatterName returns the "name:" of the YAML frontmatter at the top
// of file, reading at most 4 KiB and never blocking on a special file.
func frontmatterName(file string) string {
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(f, buf)
	b := bytes.ReplaceAll(buf[:n], []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(b, []byte("---\n")) {
		return ""
	}
	for _, line := range strings.Split(string(b[4:]), "\n") {
		if strings.TrimSpace(line) == "---" {
			break
		}
		if v, ok := strings.CutPrefix(line, "name:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// repoRoot returns the nearest directory at or above dir that contains
// .git (a directory, or a file in worktrees and submodules), or "".
func repoRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		p := filepath.Dir(d)
		if p == d {
			return ""
		}
		d = p
	}
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
