package mutation

import (
	"fmt"
	"strings"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/render/words"
)

// Notify receives a notice for a person: what sepad did, or would do, to
// a prompt file, in one or two sentences, for the project the skill
// belongs to ("" for any). The daemon hands it to the hook, which shows it
// at the start of the next Claude Code session there (spool.AppendNotice).
type Notify func(project, text string, at time.Time) error

// noteCtx is what a notice is written from; set by rollback on its record.
type noteCtx struct {
	sk           *record.Skill
	from, target *record.Version
	d            *decide.Decision
	why          string
	// plugin is set when the file is a Claude Code plugin's (plugin.go).
	plugin string
}

// notice words what a record tells a person, or "" when it tells nothing
// worth interrupting them for (a decision to keep, a person's own action).
func notice(r *Record, n *noteCtx) string {
	if n == nil || n.target == nil || r.Rule == "manual" {
		return ""
	}
	name, from, to := n.sk.Display(), n.from, n.target
	reason := noticeReason(n)
	switch {
	case r.Applied:
		verb := "rolled back"
		if r.Kind == KindDecision {
			verb = "rejected and rolled back"
		}
		return fmt.Sprintf("sepad %s %s v%d → v%d: %s. Undo: sepad rollback %s --to v%d", verb, name, from.Seq, to.Seq, reason, name, from.Seq)
	case r.Kind == KindWouldRollBack && n.plugin != "":
		return fmt.Sprintf("sepad would roll back %s v%d → v%d: %s. It is the plugin %s's file, which sepad never writes: pin the plugin's version or report it upstream (sepad decisions %s); stop these notices: sepad pin %s",
			name, from.Seq, to.Seq, reason, n.plugin, name, name)
	case r.Kind == KindWouldRollBack:
		return fmt.Sprintf("sepad would roll back %s v%d → v%d, your edit: %s. Roll back: sepad rollback %s --to v%d; keep it: sepad pin %s", name, from.Seq, to.Seq, reason, name, to.Seq, name)
	case r.Kind == KindConflict:
		return fmt.Sprintf("sepad left %s alone: it would have rolled back v%d → v%d (%s), but the file changed since or is not one it may write. See: sepad decisions %s", name, from.Seq, to.Seq, reason, name)
	case strings.Contains(r.Words, "auto_rollback is off"):
		return fmt.Sprintf("sepad would roll back %s v%d → v%d (mutation.auto_rollback is off): %s. Roll back: sepad rollback %s --to v%d", name, from.Seq, to.Seq, reason, name, to.Seq)
	}
	return ""
}

// noticeReason is the evidence in a few numbers.
func noticeReason(n *noteCtx) string {
	from, to := n.from, n.target
	if d := n.d; d != nil {
		c, b := d.Candidate, d.Baseline
		// The aggregates, as every view shows them (issue 36 item 2).
		cv, bv := c.Aggregate, b.Aggregate
		if cv == 0 || bv == 0 {
			cv, bv = c.Mean, b.Mean
		}
		return fmt.Sprintf("v%d scored %.1f against v%d's %.1f (%s points) over %d and %s", from.Seq, cv, to.Seq, bv, words.Signed(cv-bv, 1), c.N, countOf(b.N, "run"))
	}
	fa, ta := from.Aggregate, to.Aggregate
	// Which version it goes back to, and why that one (issue 36 item 5).
	which := ""
	switch {
	case from.Parent != "" && from.Parent == to.Hash && from.Source == "proposal":
		which = ", the version the mutator made v" + fmt.Sprint(from.Seq) + " from,"
	case from.Parent != "" && from.Parent == to.Hash:
		which = ", the version v" + fmt.Sprint(from.Seq) + " was made from,"
	case strings.Contains(n.why, "the best earlier version"):
		which = ", the best earlier version,"
	case strings.Contains(n.why, "the best version"):
		which = ", the best version,"
	}
	if i := strings.Index(n.why, "(its parent v"); i >= 0 && which != "" {
		if j := strings.IndexByte(n.why[i:], ')'); j > 0 {
			which = strings.TrimSuffix(which, ",") + " " + n.why[i:i+j+1] + ","
		}
	}
	grade := string(fitness.GradeOf(ta.Value))
	if !ta.Graded {
		grade = "not graded yet"
	}
	s := fmt.Sprintf("v%d scored %.1f (%s) over %s; v%d%s held %.1f (%s)", from.Seq, fa.Value, fitness.GradeOf(fa.Value), countOf(fa.N, "run"),
		to.Seq, which, ta.Value, grade)
	if from.FailRate > 0.5 && !strings.Contains(n.why, "(F)") {
		s += fmt.Sprintf("; %.0f%% of v%d's tool calls failed", 100*from.FailRate, from.Seq)
	}
	return s
}

// notify composes the record's notice, if any, and hands it on.
func (e *Engine) notify(r *Record) {
	if r.note == nil {
		return
	}
	r.Notice = notice(r, r.note)
	if r.Notice == "" || e.opts.Notify == nil {
		return
	}
	if err := e.opts.Notify(r.note.sk.Project, r.Notice, r.Time); err != nil {
		e.log.Warn("notice not written", "skill", r.Skill, "err", err)
	}
}
