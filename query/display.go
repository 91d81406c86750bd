package query

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// SessionDisplay is what the views call the session's base prompt (the
// skill "_session"): CLAUDE.md, with the instruction files it covers.
const SessionDisplay = record.SessionDisplay

// DisplayName is the name a person reads for a skill name: "CLAUDE.md"
// for "_session", else the name itself. Text views print it; --json keeps
// the stable name beside it ("display").
func DisplayName(name string) string { return record.DisplayName(name) }

// DisplayKey is a skill key as people read it: "PROJECT#CLAUDE.md" for
// the session's base prompt's "PROJECT#_session" (both name it as an
// argument), else the key itself.
func DisplayKey(key string) string {
	if p, ok := strings.CutSuffix(key, "#"+execution.SessionSkill); ok {
		return p + "#" + SessionDisplay
	}
	return key
}

// AttachFiles fills the Files of the rows of the session's base prompt
// from their versions' manifests (one read per such row): the
// instruction files each version covers, named by FileLabel.
func AttachFiles(db *store.DB, rows []GradeRow) {
	for i := range rows {
		r := &rows[i]
		if r.Kind != "session" || r.Files != nil {
			continue
		}
		v, err := db.Version(r.SkillKey, r.Hash)
		if err != nil {
			continue // a version only named by executions: no manifest
		}
		files, ok := record.ManifestFiles(v)
		if !ok {
			continue
		}
		r.Files = make([]string, len(files))
		for j, f := range files {
			r.Files[j] = FileLabel(r.Project, f.Path)
		}
	}
}

// FileLabel names an instruction file for a person: relative to the
// project when it lies in it, else "~/…" in the home directory of the
// process that asks (the daemon's: the person's), else its full path.
func FileLabel(project, path string) string {
	if project != "" {
		if rel, err := filepath.Rel(project, path); err == nil && filepath.IsLocal(rel) {
			return filepath.ToSlash(rel)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && filepath.IsLocal(rel) {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return path
}
