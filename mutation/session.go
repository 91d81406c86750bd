package mutation

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/watch"
)

// The session's base prompt (_session) is a manifest of instruction files
// (docs/executions.md): its versions come from the executions (the hook
// lists the files at SessionStart), never from the watcher, which only
// keeps what it sees of a project's CLAUDE.md as file content for
// rollbacks. A rollback of a _session version restores, file by file, the
// project-level files whose content at the target version is known and
// that lie in a write root; the user's files (~/.claude or
// $CLAUDE_CONFIG_DIR) and files above the project are named and left
// alone, unless a person asked (sepad rollback).

// keepInstructions keeps the content of the instruction files a _session
// execution's manifest names, when the file still has the listed hash
// (read with the checks of a rollback, in the watched roots only): what a
// later rollback to this version writes back.
func (e *Engine) keepInstructions(s *record.Scored) {
	x := &s.Exec
	if x.Kind != prompt.KindSession || len(x.Instructions) == 0 {
		return
	}
	roots := append(e.Roots(), e.opts.ClaudeDir)
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, f := range x.Instructions {
		if f.Hash == "" || e.kept[f.Path+"\x00"+f.Hash] {
			continue
		}
		e.kept[f.Path+"\x00"+f.Hash] = true
		if !promptfile.WithinRoots(f.Path, roots) {
			continue
		}
		b, err := promptfile.ReadInRoots(f.Path, roots)
		if err != nil || promptfile.Hash(b) != f.Hash {
			continue // edited since the session started: content unknown
		}
		if err := e.db.PutInstructionFile(f.Path, f.Hash, b); err != nil {
			e.log.Error("keep instruction file", "file", f.Path, "err", err)
		}
	}
}

// sessionFileChange keeps a watched CLAUDE.md's content: _session
// versions are manifests taken from executions, not this file's hash.
// The caller holds e.mu.
func (e *Engine) sessionFileChange(c watch.Change) error {
	e.kept[c.Path+"\x00"+c.Hash] = true
	return e.db.PutInstructionFile(c.Path, c.Hash, c.Content)
}

// fileChange is one file a _session rollback would restore or leaves.
type fileChange struct {
	path, from, to string
}

// rollbackSession rolls a _session version back to target, file by file.
// manual is set when a person asked: user-level files in a write root are
// then restored too.
func (e *Engine) rollbackSession(sk *record.Skill, st *SkillState, from, target *record.Version, rec Record, prefix, words string, mark func(string), manual bool) error {
	fromFiles, ok1 := record.ManifestFiles(from)
	toFiles, ok2 := record.ManifestFiles(target)
	if !ok1 || !ok2 {
		rec.Words = prefix + "not both session manifests (" + from.Source + ", " + target.Source + "): nothing written (would have rolled back " + words + ")"
		return e.record(rec)
	}
	was := map[string]string{}
	for _, f := range fromFiles {
		was[f.Path] = f.Hash
	}
	var changes []fileChange
	for _, f := range toFiles {
		if was[f.Path] != f.Hash {
			changes = append(changes, fileChange{f.Path, was[f.Path], f.Hash})
		}
		delete(was, f.Path)
	}
	var left []string
	for p := range was {
		left = append(left, p+" (added since: not removed)")
	}
	roots := e.WriteRoots()
	var restored, conflicts []string
	var todo []fileChange
	for _, c := range changes {
		switch {
		case c.from == "":
			left = append(left, c.path+" (removed since: not recreated)")
		case !manual && !e.projectFile(sk, c.path):
			left = append(left, c.path+" (user-level or above the project: changed only when a person asks, `sepad rollback`)")
		case !promptfile.WithinRoots(c.path, roots):
			left = append(left, c.path+" (outside the roots sepad may write: "+describeRoots(roots)+"; "+trustWords(c.path, sk.Project)+")")
		default:
			todo = append(todo, c)
		}
	}
	var contents [][]byte
	for _, c := range todo {
		b, ok, err := e.db.InstructionFile(c.path, c.to)
		if err != nil {
			return err
		}
		if !ok {
			left = append(left, c.path+" (its content at "+c.to+" was never seen)")
			continue
		}
		todo[len(contents)] = c
		contents = append(contents, b)
	}
	todo = todo[:len(contents)]
	if len(todo) == 0 {
		rec.Words = prefix + "nothing sepad may write differs: would roll back " + words + "; left alone: " + strings.Join(left, "; ")
		return e.record(rec)
	}
	o := e.optsFor(sk.Name)
	if !manual && personal(from.Source) && o.RollbackEdits != RollbackEditsAuto {
		// A manifest seen in a session is a person's edit (nothing
		// else tells who changed a file): tell, never rewrite. A
		// mutator's proposal (session_propose.go) is not.
		rec.Kind = KindWouldRollBack
		rec.Words = fmt.Sprintf("%sv%d is a person's edit, so it is not rewritten (mutation.rollback_edits: ask): would roll back %s (%s)%s; run `sepad rollback %s` to do it, or `sepad pin %s` to keep it",
			prefix, from.Seq, words, strings.Join(paths(todo), ", "), leftWords(left), sk.Display(), sk.Display())
		return e.record(rec)
	}
	if !manual && !o.AutoRollback {
		var names []string
		for _, c := range todo {
			names = append(names, c.path)
		}
		rec.Words = prefix + "auto_rollback is off: would roll back " + words + " (" + strings.Join(names, ", ") + ")" + leftWords(left)
		return e.record(rec)
	}
	for i, c := range todo {
		err := promptfile.Rollback(c.path, c.from, contents[i], roots)
		switch {
		case errors.Is(err, promptfile.ErrConflict):
			conflicts = append(conflicts, c.path+" (edited since v"+fmt.Sprint(from.Seq)+" was measured)")
		case errors.Is(err, promptfile.ErrOutsideRoots), errors.Is(err, promptfile.ErrNotRegular):
			conflicts = append(conflicts, fmt.Sprintf("%s (%v)", c.path, err))
		case err != nil:
			rec.Words = "rollback failed: " + err.Error()
			e.record(rec)
			return err
		default:
			restored = append(restored, c.path)
			e.log.Info("rolled back", "skill", sk.Name, "file", c.path, "from", c.from, "to", c.to)
		}
	}
	if len(restored) == 0 {
		rec.Kind = KindConflict
		mark(StatusConflict)
		rec.Words = prefix + "left alone (would have rolled back " + words + "): " + strings.Join(conflicts, "; ") + leftWords(left)
		return e.record(rec)
	}
	rec.Applied = true
	mark(StatusRolledBack)
	st.Cooldown = o.Cooldown
	if len(conflicts) == 0 && len(left) == 0 {
		st.Baseline = target.Hash
		st.Status[target.Hash] = StatusBaseline
	}
	rec.Words = prefix + "rolled back " + words + ": restored " + strings.Join(restored, ", ")
	if len(conflicts) > 0 {
		rec.Words += "; conflicts: " + strings.Join(conflicts, "; ")
	}
	rec.Words += leftWords(left)
	return e.record(rec)
}

func paths(cs []fileChange) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.path
	}
	return out
}

func leftWords(left []string) string {
	if len(left) == 0 {
		return ""
	}
	return "; left alone: " + strings.Join(left, "; ")
}

// projectFile reports whether path is one of the project's own files: in
// the project, and not in the user's Claude Code directory.
func (e *Engine) projectFile(sk *record.Skill, path string) bool {
	if sk.Project == "" || !promptfile.WithinRoots(path, []string{sk.Project}) {
		return false
	}
	if cd := e.opts.ClaudeDir; cd != "" && promptfile.WithinRoots(path, []string{filepath.Clean(cd)}) {
		return false
	}
	return true
}

// inForce is the hash of the version a skill's file holds now. For a
// _session whose versions are manifests it is the newest manifest whose
// files all hold their listed content now (sk.Current when none does:
// a file changed since the last session, and a rollback then finds the
// change and leaves it alone).
func (e *Engine) inForce(sk *record.Skill) (string, error) {
	if sk.Kind == prompt.KindSession {
		found := false
		for i := len(sk.Versions) - 1; i >= 0; i-- {
			files, ok := record.ManifestFiles(&sk.Versions[i])
			if !ok {
				continue
			}
			found = true
			if e.holdsNow(files) {
				return sk.Versions[i].Hash, nil
			}
		}
		if found && sk.Current != "" {
			return sk.Current, nil
		}
	}
	b, err := promptfile.ReadInRoots(skillFile(sk), e.WriteRoots())
	if err != nil {
		return "", err
	}
	return promptfile.Hash(b), nil
}

// holdsNow reports whether every listed file that lies in a watched
// root, or the user's directory, has its listed hash now (read with a
// rollback's checks; files elsewhere are not sepad's to read). The caller
// holds e.mu.
func (e *Engine) holdsNow(files []execution.InstructionFile) bool {
	roots := append(append([]string(nil), e.roots...), e.opts.ClaudeDir)
	for _, f := range files {
		if !promptfile.WithinRoots(f.Path, roots) {
			continue
		}
		b, err := promptfile.ReadInRoots(f.Path, roots)
		if err != nil || promptfile.Hash(b) != f.Hash {
			return false
		}
	}
	return true
}
