package doctor

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
)

// checkTrust says whether sepad may write the project's prompt files
// (evolve, rollback): only in the projects `sepad install --project` or
// `sepad trust` recorded, mutation.extra_roots and the user's Claude
// Code directory. A project used through the plugin alone is recorded
// by neither, so a rollback there would be refused: doctor says so
// before it happens.
func (d *doctor) checkTrust(project, home string) {
	abs, err := filepath.Abs(project)
	if err != nil {
		return
	}
	if uh, err := os.UserHomeDir(); err == nil && filepath.Clean(uh) == abs || !hasPrompts(abs) {
		return // no project's prompt files here: nothing sepad would write
	}
	roots := promptfile.InstalledRoots(home)
	if cfg, err := config.Load(config.Path("")); err == nil {
		roots = append(roots, cfg.Mutation.ExtraRoots...)
	}
	if dir, err := prompt.ConfigDir(); err == nil {
		roots = append(roots, dir)
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(filepath.Clean(r), abs); err == nil && filepath.IsLocal(rel) {
			d.ok("sepad may write the prompt files in %s (evolve, rollback)", abs)
			return
		}
	}
	d.warn(fmt.Sprintf("%s: %v: sepad records its prompts' runs but evolve and rollback leave its files alone", abs, promptfile.ErrOutsideRoots),
		fmt.Sprintf("run `sepad trust %s` (or /sepad:trust in Claude Code)", abs))
}

// hasPrompts reports whether dir holds a CLAUDE.md or a .claude directory.
func hasPrompts(dir string) bool {
	for _, n := range []string{"CLAUDE.md", ".claude"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}
