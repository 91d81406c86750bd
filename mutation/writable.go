package mutation

import (
	"fmt"
	"path/filepath"

	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/record"
)

// Writable returns nil when sepad may write the skill's prompt file,
// else an error wrapping ErrOutsideRoots that names the command giving
// it the right (`sepad trust DIR`): what evolve says before it asks a
// mutator, and what a refused rollback or proposal says.
func (e *Engine) Writable(sk *record.Skill) error {
	path := skillFile(sk)
	if promptfile.WithinRoots(path, e.WriteRoots()) {
		return nil
	}
	return fmt.Errorf("%s: %w: run `sepad trust %s`", path, promptfile.ErrOutsideRoots, TrustDir(path, sk.Project))
}

// TrustDir is the directory `sepad trust` should be given for path: the
// skill's project when path is in it, else the directory holding the
// file's .claude directory, else the file's own directory.
func TrustDir(path, project string) string {
	if project != "" && filepath.IsAbs(project) {
		if rel, err := filepath.Rel(project, path); err == nil && filepath.IsLocal(rel) {
			return project
		}
	}
	for d := filepath.Dir(path); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == ".claude" {
			return filepath.Dir(d)
		}
	}
	return filepath.Dir(path)
}

// trustWords is the fix a refusal names for path.
func trustWords(path, project string) string {
	return "run `sepad trust " + TrustDir(path, project) + "` (or `sepad install --project DIR` there, or add it to mutation.extra_roots)"
}
