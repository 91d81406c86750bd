package prompt

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

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

// Resolve finds the prompt file of name, in Claude Code's order
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
// a plugin's skill (ResolvePlugin). Agents: the project's agents
// (nearest first), then the user's, first by file name, then by
// frontmatter name. content is nil when the file is too large to hash.
func Resolve(name string, agent bool, cwd, root, home, cfg string) (p string, content []byte, ok bool) {
	if dir, skill, scoped := SplitScope(name); scoped {
		if agent || cwd == "" || !validScope(dir) || !ValidName(skill) {
			return "", nil, false
		}
		bases := []string{cwd}
		if root != "" && root != cwd {
			bases = []string{root, cwd}
		}
		return scopedSkill(dir, skill, bases)
	}
	if !ValidName(name) {
		return "", nil, false
	}
	levels := projectLevels(cwd, root, home)
	type cand struct{ root, file string }
	var cs []cand
	add := func(dir, file string) {
		if dir != "" {
			cs = append(cs, cand{dir, filepath.Join(dir, file)})
		}
	}
	claude := func(level, sub string) string { return filepath.Join(level, ".claude", sub) }
	if agent {
		for _, l := range levels {
			add(claude(l, "agents"), name+".md")
		}
		if cfg != "" {
			add(filepath.Join(cfg, "agents"), name+".md")
		}
	} else {
		if cfg != "" {
			add(filepath.Join(cfg, "skills"), filepath.Join(name, "SKILL.md"))
		}
		for _, l := range levels {
			add(claude(l, "skills"), filepath.Join(name, "SKILL.md"))
		}
		if cfg != "" {
			add(filepath.Join(cfg, "commands"), name+".md")
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
	if top == "" || filepath.Dir(top) == top || top == filepath.Join(home) {
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
		home = filepath.Join(home)
	}
	var levels []string
	for d := cwd; d != home; d = filepath.Dir(d) {
		levels = append(levels, d)
		if d == root || filepath.Dir(d) == d {
			break
		}
	}
	return levels
}

// SplitScope splits a scoped name DIR:NAME or PLUGIN:NAME around its last
// colon; scoped is false for a bare name.
func SplitScope(name string) (scope, bare string, scoped bool) {
	i := strings.LastIndex(name, ":")
	if i < 0 {
		return name, "", false
	}
	return name[:i], name[i+1:], true
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
		if !ValidName(elem) || elem[0] == '.' {
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
		base := filepath.Join(b, filepath.FromSlash(dir))
		if !within(b, base) || !isDir(base) {
			continue
		}
		skills := filepath.Join(base, ".claude", "skills")
		if p, content, ok := readPrompt(skills, filepath.Join(skills, name, "SKILL.md")); ok {
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
				subs, check, err = subdirs(d)
				if err != nil {
					continue
				}
			} else {
				check = true // not listed: look for the file itself
			}
			if check && depth > 0 {
				skills := filepath.Join(d, ".claude", "skills")
				if p, c, ok := readPrompt(skills, filepath.Join(skills, name, "SKILL.md")); ok {
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
				next = append(next, filepath.Join(d, s))
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
	if !isRegular(file) {
		return "", nil, false
	}
	b, err := readFile(file, MaxFile)
	var pe *fs.PathError
	if err != nil && (!errors.As(err, &pe) || pe.Op != "read") {
		return "", nil, false // could not open it, or it is no longer a regular file
	}
	if err != nil || int64(len(b)) > MaxFile {
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
		file := filepath.Join(root, n)
		if frontmatterName(file) == name {
			return readPrompt(root, file)
		}
	}
	return "", nil, false
}

// frontmatterName returns the "name:" of the YAML frontmatter at the top
// of file, reading at most 4 KiB and never blocking on a special file.
func frontmatterName(file string) string {
	f, _, err := openRegular(file)
	if err != nil {
		return ""
	}
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(f, buf)
	f.Close()
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
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
		if !found {
			break
		}
		rest = more
	}
	return ""
}

// RepoRoot returns the nearest directory at or above dir that contains
// .git (a directory, or a file in worktrees and submodules), or "".
func RepoRoot(dir string) string {
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
