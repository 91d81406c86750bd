package prompt

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sepad/sepad/event"
)

// Instruction files: what Claude Code loads at the start of a session
// (docs/events.md, "Instruction files"). At SessionStart the hook lists
// them as found on disk, with each file's hash, so that the session's base
// prompt (_session) has a version that names every file it is made of; on
// InstructionsLoaded it hashes the one file the event names.

const (

	// maxInstructionFiles bounds a session's manifest; maxImportDepth is
	// Claude Code's bound on @import chains; maxRulesDepth bounds the
	// directories walked below a rules directory.
	maxInstructionFiles = 256
	maxImportDepth      = 5
	maxRulesDepth       = 4
)

// ScanInstructions lists the instruction files Claude Code loads at the
// start of a session in cwd, as found on disk, sorted by path, and the
// manifest's version: the first 12 hex digits of the sha256 of
// event.ManifestText(files). cfg is the user's Claude Code directory
// ($CLAUDE_CONFIG_DIR or ~/.claude; "" for none). The set, as seen on
// Claude Code 2.1.328 and 2.1.197:
//
//   - cfg/CLAUDE.md with its imports, and cfg/rules/**/*.md;
//   - in cwd and every parent up to the filesystem root: CLAUDE.md,
//     .claude/CLAUDE.md and CLAUDE.local.md with their imports, and
//     .claude/rules/**/*.md;
//   - rules only when their front matter has no paths: key (those load
//     later, when a matching file is touched);
//   - imports (@path, outside code blocks and code spans, relative to the
//     importing file, at most 5 deep) only when they lie inside cwd,
//     except from the user's files (Claude Code asks before loading
//     anything else, and -p never asks).
func ScanInstructions(cwd, cfg string) (version string, files []event.InstructionFile) {
	sc := instrScan{cwd: cwd, project: ProjectOf(cwd), seen: map[string]bool{}}
	if cfg != "" {
		sc.file(filepath.Join(cfg, "CLAUDE.md"), true, 0)
		sc.rules(filepath.Join(cfg, "rules"), true, 0)
	}
	for d := cwd; d != ""; {
		sc.file(filepath.Join(d, "CLAUDE.md"), false, 0)
		sc.file(filepath.Join(d, ".claude", "CLAUDE.md"), false, 0)
		sc.file(filepath.Join(d, "CLAUDE.local.md"), false, 0)
		sc.rules(filepath.Join(d, ".claude", "rules"), false, 0)
		p := filepath.Dir(d)
		if p == d {
			break
		}
		d = p
	}
	slices.SortFunc(sc.files, func(a, b event.InstructionFile) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	return event.ManifestVersion(sc.files), sc.files
}

type instrScan struct {
	cwd     string
	project string // the repository root of cwd, else cwd
	seen    map[string]bool
	files   []event.InstructionFile
}

// ProjectOf is the project of an instruction scan in cwd: its repository
// root, else cwd itself ("" for none).
func ProjectOf(cwd string) string {
	if cwd == "" {
		return ""
	}
	if r := RepoRoot(cwd); r != "" {
		return r
	}
	return cwd
}

// LinksOut reports whether p, when it lies in project, is or lies under a
// symbolic link that leads out of it: a cloned repository's link to a file
// of the user's, whose hash must not reach the store. Files outside the
// project (the user's, its parents') are the user's own: false.
func LinksOut(p, project string) bool {
	if !within(project, p) {
		return false
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return true
	}
	top, err := filepath.EvalSymlinks(project)
	return err != nil || !within(top, real)
}

// add records path once; it returns its content (nil when unreadable).
func (sc *instrScan) add(path string) ([]byte, bool) {
	if sc.seen[path] || len(sc.files) >= maxInstructionFiles {
		return nil, false
	}
	if !isRegular(path) {
		return nil, false
	}
	sc.seen[path] = true
	if sc.project != "" && LinksOut(path, sc.project) {
		sc.files = append(sc.files, event.InstructionFile{Path: path, Link: LinkOutside})
		return nil, true // not read: neither hashed nor its imports followed
	}
	b, err := readFile(path, MaxFile)
	f := event.InstructionFile{Path: path}
	if err == nil && int64(len(b)) <= MaxFile {
		f.Hash = hashOf(b)
	} else {
		b = nil
	}
	sc.files = append(sc.files, f)
	return b, true
}

// file adds a memory file and what it imports.
func (sc *instrScan) file(path string, user bool, depth int) {
	b, ok := sc.add(path)
	if !ok || b == nil || depth >= maxImportDepth {
		return
	}
	dir := filepath.Dir(path)
	for _, imp := range importsOf(b) {
		p := imp
		if strings.HasPrefix(p, "~/") {
			home, _ := os.UserHomeDir()
			p = filepath.Join(home, p[2:])
		} else if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if !user && !within(sc.cwd, p) {
			continue
		}
		sc.file(p, user, depth+1)
	}
}

// rules adds the unconditional rules under dir (.md files, recursively).
func (sc *instrScan) rules(dir string, user bool, depth int) {
	if depth > maxRulesDepth || !isDir(dir) {
		return
	}
	names, err := readDirNames(dir)
	if err != nil {
		return
	}
	slices.Sort(names)
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			continue
		}
		p := filepath.Join(dir, n)
		if isDir(p) {
			sc.rules(p, user, depth+1)
			continue
		}
		if !strings.HasSuffix(n, ".md") || sc.seen[p] {
			continue
		}
		if !isRegular(p) {
			continue
		}
		b, err := readFile(p, MaxFile)
		if err == nil && hasPathsKey(b) {
			continue // loaded when a matching file is touched, not at start
		}
		sc.file(p, user, 0)
	}
}

// hasPathsKey reports whether a rule's YAML front matter has a paths: key.
func hasPathsKey(b []byte) bool {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(b, []byte("---\n")) {
		return false
	}
	for rest := b[4:]; ; {
		line, more, found := bytes.Cut(rest, []byte("\n"))
		if strings.TrimSpace(string(line)) == "---" {
			return false
		}
		if bytes.HasPrefix(line, []byte("paths:")) {
			return true
		}
		if !found {
			return false
		}
		rest = more
	}
}

// importsOf returns the @path imports of a memory file: an @ at the start
// of a line or after a blank, up to the next blank, outside fenced code
// blocks and code spans.
func importsOf(b []byte) []string {
	var out []string
	fence := false
	for rest := b; len(rest) > 0; {
		line, more, _ := bytes.Cut(rest, []byte("\n"))
		rest = more
		if t := strings.TrimSpace(string(line)); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		span := false
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case c == '`':
				span = !span
			case c == '@' && !span && (i == 0 || isBlank(line[i-1])):
				j := i + 1
				for j < len(line) && !isBlank(line[j]) && line[j] != '`' {
					j++
				}
				if p := string(line[i+1 : j]); p != "" && p != "/" {
					out = append(out, p)
				}
				i = j - 1
			}
		}
	}
	return out
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// HashFile hashes an instruction file named by an InstructionsLoaded
// event: "" when it is not a regular file, cannot be read, or is over
// 4 MiB. It is stat'ed first, so a FIFO never blocks the hook.
func HashFile(path string) string {
	if !isRegular(path) {
		return ""
	}
	b, err := readFile(path, MaxFile)
	if err != nil || int64(len(b)) > MaxFile {
		return ""
	}
	return hashOf(b)
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
