package mutation

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Errors callers branch on.
var (
	// ErrConflict: the file no longer holds the version a rollback would
	// replace: someone edited it, and it is left alone.
	ErrConflict = errors.New("file was edited since the version being replaced: left alone")
	// ErrOutsideRoots: the path is not under a watched root.
	ErrOutsideRoots = errors.New("path is outside the watched skill roots")
)

// Hash is a version's identity: the first 12 hex digits of the sha256 of
// the content, as the hook computes it.
func Hash(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:6])
}

// WithinRoots reports whether path, with symlinks in its directory
// resolved, lies under one of roots.
func WithinRoots(path string, roots []string) bool {
	dir, err := filepath.EvalSymlinks(filepath.Dir(filepath.Clean(path)))
	if err != nil {
		return false
	}
	p := filepath.Join(dir, filepath.Base(path))
	for _, r := range roots {
		rr, err := filepath.EvalSymlinks(filepath.Clean(r))
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(rr, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// Restore puts content back into path if, and only if, the file still
// hashes to expect (the version being replaced). It writes atomically: a
// temporary file in the same directory, fsync, rename over the file, fsync
// of the directory; the file's mode bits are kept.
func Restore(path, expect string, content []byte, roots []string) error {
	if !WithinRoots(path, roots) {
		return fmt.Errorf("restore %s: %w", path, ErrOutsideRoots)
	}
	cur, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	if err == nil && Hash(cur) != expect || errors.Is(err, os.ErrNotExist) && expect != "" {
		return fmt.Errorf("restore %s: %w", path, ErrConflict)
	}
	return WriteFileAtomic(path, content)
}

// WriteFileAtomic replaces path with content so that readers see either the
// old or the new content, never a mix, and a crash leaves one of the two.
func WriteFileAtomic(path string, content []byte) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".sepad-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	clean := func(e error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, e)
	}
	if _, err := tmp.Write(content); err != nil {
		return clean(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return clean(err)
	}
	if err := tmp.Sync(); err != nil {
		return clean(err)
	}
	if err := tmp.Close(); err != nil {
		return clean(err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// PromptFile describes a prompt file found under a root.
type PromptFile struct {
	Path    string
	Name    string // skill, agent or command name; "_session" for CLAUDE.md
	Kind    string // skill, agent, command, session
	Project string // the root for project files; "" for the user's home
	Key     string // the skill key the store uses
}

// classify tells whether path is a prompt file under root, and which.
// user is true for the user's home root (~/.claude/...), where CLAUDE.md is
// not a project's _session.
func classify(root, path string, user bool) (PromptFile, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return PromptFile{}, false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	pf := PromptFile{Path: path, Key: path}
	if !user {
		pf.Project = root
	}
	switch {
	case len(parts) == 1 && parts[0] == "CLAUDE.md" && !user:
		pf.Name, pf.Kind, pf.Key = "_session", "session", root+"#_session"
	case len(parts) == 4 && parts[0] == ".claude" && parts[1] == "skills" && parts[3] == "SKILL.md":
		pf.Name, pf.Kind = parts[2], "skill"
	case len(parts) == 3 && parts[0] == ".claude" && parts[1] == "agents" && strings.HasSuffix(parts[2], ".md"):
		pf.Name, pf.Kind = strings.TrimSuffix(parts[2], ".md"), "agent"
	case len(parts) == 3 && parts[0] == ".claude" && parts[1] == "commands" && strings.HasSuffix(parts[2], ".md"):
		pf.Name, pf.Kind = strings.TrimSuffix(parts[2], ".md"), "command"
	default:
		return PromptFile{}, false
	}
	return pf, true
}

// scanRoot lists the prompt files under root.
func scanRoot(root string, user bool) []PromptFile {
	var out []PromptFile
	globs := []string{".claude/skills/*/SKILL.md", ".claude/agents/*.md", ".claude/commands/*.md"}
	if !user {
		globs = append(globs, "CLAUDE.md")
	}
	for _, g := range globs {
		ms, _ := filepath.Glob(filepath.Join(root, g))
		for _, m := range ms {
			if pf, ok := classify(root, m, user); ok {
				out = append(out, pf)
			}
		}
	}
	return out
}
