package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
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
			if native := fromSlash(norm); isAbsPath(native) {
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
	if content != nil {
		sum := sha256.Sum256(content)
		s.SkillVersion = hex.EncodeToString(sum[:6])
	}
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
		return joinPath(d)
	}
	if home == "" {
		return ""
	}
	return joinPath(home, ".claude")
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
	case evUserPromptExpansion:
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

// Bounds of the search for a nested skill below the project root: the
// hook runs on every tool call, so a name that resolves nowhere (a plugin
// skill called by its bare name, a built-in command) must cost little.
// BenchmarkEnrichSkill measures it (BENCHMARKS.md).
const (
	nestedMaxDepth = 3   // directory levels below the project root
	nestedMaxDirs  = 128 // directories visited, in all
)

// nestedSkip are directory names the nested search never enters, besides
// hidden ones: they hold dependencies or build output, never the
// project's own skills, and can be huge.
var nestedSkip = [...]string{"node_modules", "vendor"}

// resolveSkill finds the prompt file of name, in Claude Code's order
// (docs/events.md, "Skill attribution"). cwd is the event's directory
// ("" when not on this machine), root its repository root ("" outside a
// repository), home the user's home directory and cfg the user's Claude
// Code configuration directory (~/.claude or $CLAUDE_CONFIG_DIR).
//
// Skills and commands: the user's skill, the project's skills (nearest
// directory first), the user's command, the project's commands, then a
// nested skill below the project root (apps/web/.claude/skills/NAME). A
// scoped name DIR:NAME is the skill NAME of the directory DIR, relative
// to the project root (or cwd); when DIR is not a directory there, it is
// a plugin's skill (attribute then resolves it, plugin.go). Agents: the project's agents
// (nearest first), then the user's, first by file name, then by
// frontmatter name. content is nil when the file is too large to hash.
func resolveSkill(name string, agent bool, cwd, root, home, cfg string) (p string, content []byte, ok bool) {
	if dir, skill, scoped := cutLast(name, ":"); scoped {
		if agent || cwd == "" || !validScope(dir) || !validSkillName(skill) {
			return "", nil, false
		}
		bases := []string{cwd}
		if root != "" && root != cwd {
			bases = []string{root, cwd}
		}
		return scopedSkill(dir, skill, bases)
	}
	if !validSkillName(name) {
		return "", nil, false
	}
	levels := projectLevels(cwd, root, home)
	type cand struct{ root, file string }
	var cs []cand
	add := func(dir, file string) {
		if dir != "" {
			cs = append(cs, cand{dir, joinPath(dir, file)})
		}
	}
	claude := func(level, sub string) string { return joinPath(level, ".claude", sub) }
	if agent {
		for _, l := range levels {
			add(claude(l, "agents"), name+".md")
		}
		if cfg != "" {
			add(joinPath(cfg, "agents"), name+".md")
		}
	} else {
		if cfg != "" {
			add(joinPath(cfg, "skills"), joinPath(name, "SKILL.md"))
		}
		for _, l := range levels {
			add(claude(l, "skills"), joinPath(name, "SKILL.md"))
		}
		if cfg != "" {
			add(joinPath(cfg, "commands"), name+".md")
		}
		for _, l := range levels {
			add(claude(l, "commands"), name+".md")
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
		return "", nil, false
	}
	top := root
	if top == "" {
		top = cwd
	}
	if top == "" || dirPath(top) == top || top == joinPath(home) {
		return "", nil, false // not a project: never search a whole disk or home
	}
	return nestedSkill(top, name)
}

// projectLevels lists the directories whose .claude Claude Code reads for
// an event in cwd, nearest first: cwd and each parent up to the
// repository root, or, outside a repository, up to the filesystem root.
// The home directory ends the walk and is not a level: its .claude is the
// user's, read as such (or replaced by $CLAUDE_CONFIG_DIR).
func projectLevels(cwd, root, home string) []string {
	if cwd == "" {
		return nil
	}
	if home != "" {
		home = joinPath(home)
	}
	var levels []string
	for d := cwd; d != home; d = dirPath(d) {
		levels = append(levels, d)
		if d == root || dirPath(d) == d {
			break
		}
	}
	return levels
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	for i := len(s) - len(sep); i >= 0; i-- {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

// validScope reports whether dir, the DIR of a scoped name DIR:NAME, is a
// relative slash-separated path of ordinary names: each element a valid
// skill name that is not hidden, so it can only name a directory inside
// the project.
func validScope(dir string) bool {
	if dir == "" || len(dir) > 1024 {
		return false
	}
	for rest := dir; ; {
		elem, more, found := cutFirst(rest, "/")
		if !validSkillName(elem) || elem[0] == '.' {
			return false
		}
		if !found {
			return true
		}
		rest = more
	}
}

// cutFirst splits s around the first sep.
func cutFirst(s, sep string) (before, after string, found bool) {
	if i := strings.Index(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// scopedSkill resolves DIR:NAME: the first base in which DIR is a
// directory with .claude/skills/NAME/SKILL.md.
func scopedSkill(dir, name string, bases []string) (string, []byte, bool) {
	for _, b := range bases {
		base := joinPath(b, fromSlash(dir))
		if !within(b, base) || !isDir(base) {
			continue
		}
		skills := joinPath(base, ".claude", "skills")
		if p, content, ok := readPrompt(skills, joinPath(skills, name, "SKILL.md")); ok {
			return p, content, true
		}
	}
	return "", nil, false
}

// nestedSkill looks below top for DIR/.claude/skills/name/SKILL.md, the
// skill Claude Code discovers once a file under DIR is touched and lets
// the model call by its bare name when no project-level skill has it. It
// searches breadth first, at most nestedMaxDepth levels below top and
// nestedMaxDirs directories, entering no hidden directory, no
// node_modules or vendor and no symbolic link. Directories above the last
// level are listed (one getdents call each, which also tells whether they
// have a .claude); those of the last level are only stat'ed for the file.
// The shallowest match wins; two at the same depth are ambiguous and
// resolve to nothing.
func nestedSkill(top, name string) (string, []byte, bool) {
	var (
		queue   = []string{top}
		visited int
		buf     = make([]byte, 8192) // one listing buffer for the whole search
	)
	for depth := 0; depth <= nestedMaxDepth && len(queue) > 0; depth++ {
		var (
			next           []string
			found          string
			content        []byte
			ambiguous      bool
			check, descend bool
		)
		for _, d := range queue {
			if visited >= nestedMaxDirs {
				break
			}
			visited++
			var subs []string
			if depth < nestedMaxDepth {
				var err error
				subs, check, err = subdirs(d, buf)
				if err != nil {
					continue
				}
			} else {
				check = true // not listed: look for the file itself
			}
			if check && depth > 0 {
				skills := joinPath(d, ".claude", "skills")
				if p, c, ok := readPrompt(skills, joinPath(skills, name, "SKILL.md")); ok {
					ambiguous = found != ""
					found, content = p, c
				}
			}
			descend = found == ""
			if !descend {
				continue
			}
		subdir:
			for _, s := range subs {
				if s[0] == '.' {
					continue
				}
				for _, skip := range nestedSkip {
					if s == skip {
						continue subdir
					}
				}
				next = append(next, joinPath(d, s))
			}
		}
		if ambiguous {
			return "", nil, false
		}
		if found != "" {
			return found, content, true
		}
		queue = next
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
	if _, ok := statRegular(file); !ok {
		return "", nil, false
	}
	b, err := readFile(file, maxSkillFile)
	var pe *fs.PathError
	if err != nil && (!errors.As(err, &pe) || pe.Op != "read") {
		return "", nil, false // could not open it, or it is no longer a regular file
	}
	if err != nil || int64(len(b)) > maxSkillFile {
		return file, nil, true
	}
	return file, b, true
}

// agentByFrontmatter looks for an agent file in root whose frontmatter
// "name:" is name (agent files may be named differently from the type).
func agentByFrontmatter(root, name string) (string, []byte, bool) {
	names, err := readDirNames(root)
	if err != nil {
		return "", nil, false
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".md") {
			continue
		}
		file := joinPath(root, n)
		if frontmatterName(file) == name {
			return readPrompt(root, file)
		}
	}
	return "", nil, false
}

// frontmatterName returns the "name:" of the YAML frontmatter at the top
// of file, reading at most 4 KiB and never blocking on a special file.
func frontmatterName(file string) string {
	if _, ok := statRegular(file); !ok {
		return ""
	}
	f, err := openFile(file, oRead, 0)
	if err != nil {
		return ""
	}
	defer f.close()
	buf := make([]byte, 4096)
	n := 0
	for n < len(buf) {
		m, err := f.read(buf[n:])
		n += m
		if m == 0 || err != nil {
			break
		}
	}
	b := bytes.ReplaceAll(buf[:n], []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(b, []byte("---\n")) {
		return ""
	}
	for rest := b[4:]; ; {
		line, more, found := bytes.Cut(rest, []byte("\n"))
		if strings.TrimSpace(string(line)) == "---" {
			break
		}
		if v, ok := strings.CutPrefix(string(line), "name:"); ok {
			return trimQuotes(strings.TrimSpace(v))
		}
		if !found {
			break
		}
		rest = more
	}
	return ""
}

// repoRoot returns the nearest directory at or above dir that contains
// .git (a directory, or a file in worktrees and submodules), or "".
func repoRoot(dir string) string {
	for d := dir; ; {
		if lexists(joinPath(d, ".git")) {
			return d
		}
		p := dirPath(d)
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
