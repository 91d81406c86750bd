package mutation

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
)

// rulePrefix starts a rollback's words: the safety rule's verdict in
// words, or "by hand" (the rule's id stays in the record's rule field).
func rulePrefix(rule, why string) string {
	switch {
	case why != "":
		return why + "; "
	case rule == "manual":
		return "by hand: "
	case rule == "decision":
		return ""
	}
	return "a safety rule: "
}

// rollback restores target's content over the file holding from, unless
// someone edited it, and records what happened. why is the safety rule's
// verdict in words, with its numbers ("" for a decision or by hand).
func (e *Engine) rollback(sk *record.Skill, st *SkillState, from, target *record.Version, rule, why string, d *decide.Decision) error {
	if st.Pinned != "" {
		return nil // a pinned skill's file is never written
	}
	rec := Record{Kind: KindRollback, SkillKey: sk.Key, Skill: sk.Name, Rule: rule, From: from.Hash, Decision: d,
		note: &noteCtx{sk: sk, from: from, target: target, d: d, why: why}}
	if d != nil {
		rec.Kind = KindDecision
	}
	if why != "" {
		rec.Evidence = e.evidence(sk.Key, from, target)
	}
	// The version's status says what happened to the file: "rolled back"
	// only when it was rewritten; "conflict" when a person's edit was left
	// alone; "would roll back" when the file still holds the version.
	mark := func(status string) {
		if st.Status[from.Hash] != StatusRejected {
			st.Status[from.Hash] = status
		}
	}
	mark(StatusWouldRollBack)
	if sk.Kind != "session" {
		if plugin, ok := prompt.PluginOf(sk.Path, e.opts.ClaudeDir); ok {
			// A plugin's prompt: decided and told, never written.
			words := pluginWords(plugin, sk.Name, sk.Path)
			rec.note.plugin = plugin
			if rule == "manual" {
				return &proposal.RefusalError{Rule: "plugin_file", Detail: words}
			}
			rec.Kind = KindWouldRollBack
			what := fmt.Sprintf("v%d (%s)", from.Seq, from.Hash)
			if target != nil {
				rec.To = target.Hash
				what = words0(from, target)
			}
			prefix := rulePrefix(rule, why)
			if d != nil {
				prefix = d.Words + "; "
			}
			rec.Words = prefix + "would roll back " + what + "; " + words
			e.log.Warn("would roll back a plugin's prompt", "skill", sk.Name, "plugin", plugin, "file", sk.Path, "rule", rule)
			return e.record(rec)
		}
	}
	if target == nil || !target.ContentKnown {
		rec.Words = "nothing to roll back to: the content of the previous version was never seen"
		if why != "" {
			rec.Words = rulePrefix(rule, why) + rec.Words
		}
		return e.record(rec)
	}
	rec.To = target.Hash
	path := sk.Path
	if sk.Kind == "session" {
		path = filepath.Join(sk.Project, "CLAUDE.md")
	}
	words := words0(from, target)
	prefix := rulePrefix(rule, why)
	if d != nil {
		prefix = d.Words + "; "
	}
	if from.Hash == st.Candidate {
		st.Candidate = ""
	}
	_, fromManifest := record.ManifestFiles(from)
	_, toManifest := record.ManifestFiles(target)
	if sk.Kind == prompt.KindSession && (fromManifest || toManifest) {
		return e.rollbackSession(sk, st, from, target, rec, prefix, words, mark, rule == "manual")
	}
	if !e.isPromptFile(path) {
		rec.Words = fmt.Sprintf("%s is not a prompt file under a watched root: never written", path)
		return e.record(rec)
	}
	roots := e.WriteRoots()
	if !promptfile.WithinRoots(path, roots) {
		rec.Kind = KindConflict
		rec.Words = fmt.Sprintf("%s%s is outside the roots sepad may write (%s): left alone (would have rolled back %s); "+
			"%s", prefix, path, describeRoots(roots), words, trustWords(path, sk.Project))
		e.log.Warn("rollback refused: outside the write roots", "skill", sk.Name, "file", path)
		return e.record(rec)
	}
	if other, claim := e.heldElsewhere(path, roots); other != "" {
		rec.Kind = KindConflict
		rec.Words = prefix + heldWords(path, other, claim) + " (would have rolled back " + words + ")"
		e.log.Warn("rollback refused: another sepad home holds the project", "skill", sk.Name, "file", path, "holder", other)
		return e.record(rec)
	}
	manual := rule == "manual"
	o := e.optsFor(sk.Name)
	if !manual && !o.AutoRollback {
		rec.Words = prefix + "auto_rollback is off: would roll back " + words
		return e.record(rec)
	}
	if !manual && personal(from.Source) && o.RollbackEdits != RollbackEditsAuto {
		// A person wrote this version: tell them, never rewrite it.
		rec.Kind = KindWouldRollBack
		rec.Words = fmt.Sprintf("%sv%d is a person's edit, so it is not rewritten (mutation.rollback_edits: ask): would roll back %s; run `sepad rollback %s --to v%d` to do it, or `sepad pin %s` to keep it",
			prefix, from.Seq, words, sk.Display(), target.Seq, sk.Display())
		e.log.Warn("would roll back a person's edit", "skill", sk.Name, "file", path, "rule", rule)
		return e.record(rec)
	}
	err := promptfile.Rollback(path, from.Hash, target.Content, roots)
	switch {
	case errors.Is(err, promptfile.ErrConflict):
		rec.Kind = KindConflict
		mark(StatusConflict)
		rec.Words = fmt.Sprintf("%s%s was edited since v%d was measured: left alone (would have rolled back %s)", prefix, path, from.Seq, words)
		e.log.Warn("rollback skipped: file edited by someone", "skill", sk.Name, "file", path)
		return e.record(rec)
	case errors.Is(err, promptfile.ErrOutsideRoots), errors.Is(err, promptfile.ErrNotRegular):
		// A link to outside the root, or something other than a regular
		// file, where the prompt file was: never written through.
		rec.Kind = KindConflict
		rec.Words = fmt.Sprintf("%s%s: left alone (would have rolled back %s): %v", prefix, path, words, err)
		e.log.Warn("rollback refused: not a regular file inside its root", "skill", sk.Name, "file", path, "err", err)
		return e.record(rec)
	case err != nil:
		rec.Words = "rollback failed: " + err.Error()
		e.record(rec)
		return err
	}
	rec.Applied = true
	mark(StatusRolledBack)
	rec.Words = prefix + "rolled back " + words
	st.Cooldown = o.Cooldown
	st.Baseline = target.Hash
	st.Status[target.Hash] = StatusBaseline
	e.log.Info("rolled back", "skill", sk.Name, "file", path, "rule", rule, "from", from.Hash, "to", target.Hash)
	if _, err := e.db.PutVersion(record.Skill{Key: sk.Key, Name: sk.Name, Kind: sk.Kind, Project: sk.Project, Path: sk.Path},
		record.Version{Hash: target.Hash, Content: target.Content, ContentKnown: true, FirstSeen: e.opts.Now().UTC(), Source: "rollback"}); err != nil {
		return err
	}
	return e.record(rec)
}

// WriteRoots returns the directories rollbacks and proposals may write
// in: the user's Claude Code directory, mutation.extra_roots and the
// projects where `sepad install` ran; never "/" or the user's home itself,
// and never a directory only seen in events.
func (e *Engine) WriteRoots() []string {
	cands := []string{e.opts.ClaudeDir}
	cands = append(cands, e.opts.ExtraRoots...)
	if e.opts.InstalledRoots != nil {
		cands = append(cands, e.opts.InstalledRoots()...)
	}
	home := ""
	if e.opts.UserHome != "" {
		home = filepath.Clean(e.opts.UserHome)
	}
	var out []string
	for _, r := range cands {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		r = filepath.Clean(r)
		if r == filepath.Dir(r) || r == home || slices.Contains(out, r) {
			continue // "/" (or a volume root) and $HOME are never roots
		}
		if rr, err := filepath.EvalSymlinks(r); err == nil && (rr == filepath.Dir(rr) || rr == home) {
			continue
		}
		out = append(out, r)
	}
	return out
}

func describeRoots(roots []string) string {
	if len(roots) == 0 {
		return "none"
	}
	return strings.Join(roots, ", ")
}

// isPromptFile reports whether path is a prompt file (skill, agent,
// command, CLAUDE.md) under a watched root: the only files sepad writes.
func (e *Engine) isPromptFile(path string) bool {
	for _, r := range e.roots {
		if _, ok := prompt.Classify(r, path, prompt.RootProject|prompt.RootUser); ok {
			return true
		}
	}
	return false
}

// words0 names a rollback: "vN (hash) → vM (hash)".
func words0(from, target *record.Version) string {
	return fmt.Sprintf("v%d (%s) → v%d (%s)", from.Seq, from.Hash, target.Seq, target.Hash)
}
