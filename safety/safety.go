// Package safety holds the rules that roll a prompt version back without
// waiting for a decision: graded F, fallen below a ratio of the best
// version, failing too many tool calls; which version each goes back to,
// and the cooldown after a rollback (pure; docs/decisions.md). The
// mutation engine applies the plan.
package safety

import (
	"fmt"
	"slices"

	"github.com/sepad/sepad/fitness"
)

// VersionStat is what the safety rules know about one version of a skill.
type VersionStat struct {
	Hash string
	// Seq numbers a skill's versions in order of first sight (v1, v2, …).
	Seq int
	// Parent is the version that was in force before this one.
	Parent string
	// N scored executions; Graded is the aggregate's verdict that N is
	// enough to grade.
	N      int
	Graded bool
	// Aggregate is the version's aggregate score; its grade follows the
	// rubric (fitness.GradeOf).
	Aggregate float64
	// FailRate is the share of the version's tool calls that failed.
	FailRate float64
	// Models are the models that answered the version's scored runs (nil
	// when none is known).
	Models []string
	// Mutator is set for a version a mutator wrote (sepad evolve, sepad
	// propose): one that got worse is undone, back to its parent.
	Mutator bool
}

// shareModel reports whether two versions can be compared on their
// scores: one of them names no model, or they have a model in common. A
// model change is not a prompt change: a version that scores below one
// run only on another model is not rolled back to it (docs/decisions.md).
func shareModel(a, b VersionStat) bool {
	if len(a.Models) == 0 || len(b.Models) == 0 {
		return true
	}
	for _, m := range a.Models {
		if slices.Contains(b.Models, m) {
			return true
		}
	}
	return false
}

// Safety rules, as recorded in a decision's rule field.
const (
	// RuleGradeF: the version is graded F: back to its parent when that is
	// graded above F (a mutator's version: when it is not graded F), else
	// to the best earlier version graded above F.
	RuleGradeF = "grade_f"
	// RuleBelowRatio: the version's aggregate fell below ratio × the best
	// version's: back to its parent when that is above F and not below the
	// ratio itself (a mutator's version: when it is not graded F), else to
	// the best.
	RuleBelowRatio = "below_ratio_of_best"
	// RuleFailRate: the version's executions fail too many tool calls: back
	// to its parent.
	RuleFailRate = "tool_failure_rate"
)

// Options turn each rule on or off and set its threshold.
type Options struct {
	// RollbackOnF turns RuleGradeF on.
	RollbackOnF bool
	// RollbackRatio is RuleBelowRatio's ratio; 0 turns the rule off.
	RollbackRatio float64
	// RollbackFailRate is RuleFailRate's threshold (a share of tool calls);
	// 1 or more turns the rule off.
	RollbackFailRate float64
	// MinSamples is the scored executions a version needs before a rule
	// may roll it back (mutation.min_samples): a rollback is a verdict, and
	// needs as much evidence as a decision.
	MinSamples int
	// Cooldown is the executions after a rollback during which no new
	// decision is made for the skill; 0 turns it off. Check does not
	// use it: the caller starts it after a rollback and counts it down
	// with CooldownTick.
	Cooldown int
}

// DefaultOptions are the protocol's rules, all on.
func DefaultOptions() Options {
	return Options{RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 0.5, Cooldown: 5}
}

// RollbackPlan is a safety rule's verdict: restore Target in place of From.
type RollbackPlan struct {
	Rule   string `json:"rule"`
	From   string `json:"from"`
	Target string `json:"target"`
	Words  string `json:"words"`
}

// Check applies the safety rules, in order (grade F, ratio of the
// best, tool failures), to version cur among all the skill's versions
// (cur may be among them). It returns the first rule that fires and has a
// version to go back to; ok is false when none does. A version that is not
// graded yet is never rolled back: one bad execution is not a verdict.
func Check(cur VersionStat, versions []VersionStat, o Options) (r RollbackPlan, ok bool) {
	if !cur.Graded || cur.N < o.MinSamples {
		return RollbackPlan{}, false
	}
	curGrade := fitness.GradeOf(cur.Aggregate)
	// usable: graded, above F, and not cur itself. Whether a version's
	// content is known does not matter here: the verdict must be the same
	// when a spool is replayed into a fresh store that never saw the old
	// contents (the caller records that it cannot restore then).
	usable := func(v VersionStat) bool {
		return v.Hash != cur.Hash && v.Graded && fitness.GradeOf(v.Aggregate) != fitness.F && shareModel(cur, v)
	}
	better := func(a, b *VersionStat) bool { // a beats b; ties go to the newer
		return b == nil || a.Aggregate > b.Aggregate || a.Aggregate == b.Aggregate && a.Seq > b.Seq
	}
	var best, bestEarlier *VersionStat
	for i := range versions {
		v := &versions[i]
		if !usable(*v) {
			continue
		}
		if better(v, best) {
			best = v
		}
		if v.Seq < cur.Seq && better(v, bestEarlier) {
			bestEarlier = v
		}
	}
	// A version that got worse goes back to the version it was made from
	// when that is fit: the best (earlier) version may be one a person
	// rolled away from on purpose (issue 36 item 5). A mutator's version
	// is undone whenever its parent is not graded F, graded yet or not.
	parent := parentOf(cur, versions)
	if parent != nil && (parent.Hash == cur.Hash || parent.Seq > cur.Seq) {
		parent = nil
	}
	parentFit := func(floor float64) bool {
		switch {
		case parent == nil:
			return false
		case !parent.Graded:
			return cur.Mutator
		case fitness.GradeOf(parent.Aggregate) == fitness.F:
			return false
		}
		return cur.Mutator || parent.Aggregate >= floor && shareModel(cur, *parent)
	}
	parentWords := fmt.Sprintf("its parent, the version v%d was made from", cur.Seq)
	if cur.Mutator {
		parentWords = fmt.Sprintf("its parent, the version the mutator made v%d from", cur.Seq)
	}
	if o.RollbackOnF && curGrade == fitness.F && (bestEarlier != nil || parentFit(0)) {
		target, which := bestEarlier, "the best earlier version above F"
		if parentFit(0) {
			target, which = parent, parentWords
		} else if parent != nil {
			which += fmt.Sprintf(" (its parent v%d is not graded above F)", parent.Seq)
		}
		return RollbackPlan{Rule: RuleGradeF, From: cur.Hash, Target: target.Hash,
			Words: fmt.Sprintf("v%d scored %.2f (F) over %d runs (a version graded F, below 50, with at least %d runs goes back): back to v%d, %s, which held %s",
				cur.Seq, cur.Aggregate, cur.N, max(o.MinSamples, 1), target.Seq, which, held(target))}, true
	}
	if o.RollbackRatio > 0 && best != nil && cur.Aggregate < o.RollbackRatio*best.Aggregate {
		floor := o.RollbackRatio * best.Aggregate
		target, which := best, "the best version"
		if parentFit(floor) {
			target, which = parent, parentWords
		} else if parent != nil && parent.Hash != best.Hash {
			which += fmt.Sprintf(" (its parent v%d is not graded above F and at least %.2f)", parent.Seq, floor)
		}
		return RollbackPlan{Rule: RuleBelowRatio, From: cur.Hash, Target: target.Hash,
			Words: fmt.Sprintf("v%d scored %.2f over %s, below %.2f × %.2f = %.2f, the best version v%d's score times rollback_ratio: back to v%d, %s, which held %s",
				cur.Seq, cur.Aggregate, runs(cur.N), o.RollbackRatio, best.Aggregate, floor, best.Seq, target.Seq, which, held(target))}, true
	}
	if o.RollbackFailRate < 1 && cur.FailRate > o.RollbackFailRate && cur.Parent != "" {
		for i := range versions {
			p := versions[i]
			if p.Hash == cur.Parent && p.Hash != cur.Hash {
				return RollbackPlan{Rule: RuleFailRate, From: cur.Hash, Target: p.Hash,
					Words: fmt.Sprintf("v%d's runs failed %.0f%% of their tool calls over %d runs, scoring %.2f (more than %.0f%% failed tool calls goes back to the parent): back to its parent v%d, which held %.2f over %s",
						cur.Seq, 100*cur.FailRate, cur.N, cur.Aggregate, 100*o.RollbackFailRate, p.Seq, p.Aggregate, runs(p.N))}, true
			}
		}
	}
	return RollbackPlan{}, false
}

// held is what a version held: "70.00 (B) over 10 runs", or its runs
// while it is not graded yet.
func held(v *VersionStat) string {
	if !v.Graded {
		return fmt.Sprintf("%.2f over %s (not graded yet)", v.Aggregate, runs(v.N))
	}
	return fmt.Sprintf("%.2f (%s) over %s", v.Aggregate, fitness.GradeOf(v.Aggregate), runs(v.N))
}

// runs is "1 run", "5 runs".
func runs(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// parentOf is cur's parent among versions, nil when it is not there.
func parentOf(cur VersionStat, versions []VersionStat) *VersionStat {
	if cur.Parent == "" || cur.Parent == cur.Hash {
		return nil
	}
	for i := range versions {
		if versions[i].Hash == cur.Parent {
			return &versions[i]
		}
	}
	return nil
}

// CooldownTick counts one execution of a skill against its cooldown: it
// returns the executions left and whether this execution may lead to a
// decision (false while the cooldown runs).
func CooldownTick(left int) (remaining int, mayDecide bool) {
	if left > 0 {
		return left - 1, false
	}
	return 0, true
}
