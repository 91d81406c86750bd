package prompt

import (
	"path/filepath"
	"strings"
)

// MaxFile bounds the prompt files read and hashed: a larger "skill" is
// recorded by name and path without a version.
const MaxFile = 4 << 20

// LinkOutside is sepa.skill_link for a prompt file that leads out of its
// project.
const LinkOutside = "outside_project"

// LeavesProject reports whether p, a project's prompt file, is or lies
// in a symbolic link that leads out of its project: the repository root
// (root) when p is in it, else the directory holding p's .claude. The
// user's own Claude directory (cfg) is not a project: links there are the
// user's and are followed wherever they point.
func LeavesProject(p, root, cfg string) bool {
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
	return LinksOut(p, project)
}

// ValidName reports whether name may be looked up as one path element
// under the skill roots. Anything else is recorded as given, never opened.
func ValidName(name string) bool {
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

// NameOfFile names a prompt file given by its absolute path, as when
// sepad has not seen it run (its key is then its path): a skill's
// directory for its SKILL.md, else the file's name without ".md". ok is
// false when path is not absolute or not a regular file.
func NameOfFile(path string) (name string, ok bool) {
	if !filepath.IsAbs(path) || !isRegular(path) {
		return "", false
	}
	if filepath.Base(path) == "SKILL.md" {
		return filepath.Base(filepath.Dir(path)), true
	}
	return strings.TrimSuffix(filepath.Base(path), ".md"), true
}
