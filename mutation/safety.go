package mutation

import (
	"fmt"

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
}

// Safety rules, as recorded in a decision's rule field.
const (
	// RuleGradeF: the version is graded F: back to the best earlier version
	// graded above F.
	RuleGradeF = "grade_f"
	// RuleBelowRatio: the version's aggregate fell below ratio × the best
	// version's: back to the best.
	RuleBelowRatio = "below_ratio_of_best"
	// RuleFailRate: the version's executions fail too many tool calls: back
	// to its parent.
	RuleFailRate = "tool_failure_rate"
)

// SafetyOptions turn each rule on or off and set its threshold.
type SafetyOptions struct {
	// RollbackOnF turns RuleGradeF on.
	RollbackOnF bool
	// RollbackRatio is RuleBelowRatio's ratio; 0 turns the rule off.
	RollbackRatio float64
	// RollbackFailRate is RuleFailRate's threshold (a share of tool calls);
	// 1 or more turns the rule off.
	RollbackFailRate float64
	// Cooldown is the executions after a rollback during which no new
	// decision is made for the skill; 0 turns it off. CheckSafety does not
	// use it: the caller starts it after a rollback and counts it down
	// with CooldownTick.
	Cooldown int
}

// DefaultSafetyOptions are the protocol's rules, all on.
func DefaultSafetyOptions() SafetyOptions {
	return SafetyOptions{RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 0.5, Cooldown: 5}
}

// RollbackPlan is a safety rule's verdict: restore Target in place of From.
type RollbackPlan struct {
	Rule   string `json:"rule"`
	From   string `json:"from"`
	Target string `json:"target"`
	Words  string `json:"words"`
}

// CheckSafety applies the safety rules, in order (grade F, ratio of the
// best, tool failures), to version cur among all the skill's versions
// (cur may be among them). It returns the first rule that fires and has a
// version to go back to; ok is false when none does. A version that is not
// graded yet is never rolled back: one bad execution is not a verdict.
func CheckSafety(cur VersionStat, versions []VersionStat, o SafetyOptions) (r RollbackPlan, ok bool) {
	if !cur.Graded {
		return RollbackPlan{}, false
	}
	curGrade := fitness.GradeOf(cur.Aggregate)
	// usable: graded, above F, and not cur itself. Whether a version's
	// content is known does not matter here: the verdict must be the same
	// when a spool is replayed into a fresh store that never saw the old
	// contents (the caller records that it cannot restore then).
	usable := func(v VersionStat) bool {
		return v.Hash != cur.Hash && v.Graded && fitness.GradeOf(v.Aggregate) != fitness.F
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
	if o.RollbackOnF && curGrade == fitness.F && bestEarlier != nil {
		return RollbackPlan{Rule: RuleGradeF, From: cur.Hash, Target: bestEarlier.Hash,
			Words: fmt.Sprintf("v%d is graded F (aggregate %.2f over %d executions): back to v%d, the best earlier version above F (%.2f, %s)",
				cur.Seq, cur.Aggregate, cur.N, bestEarlier.Seq, bestEarlier.Aggregate, fitness.GradeOf(bestEarlier.Aggregate))}, true
	}
	if o.RollbackRatio > 0 && best != nil && cur.Aggregate < o.RollbackRatio*best.Aggregate {
		return RollbackPlan{Rule: RuleBelowRatio, From: cur.Hash, Target: best.Hash,
			Words: fmt.Sprintf("v%d's aggregate %.2f is below %.2f × %.2f = %.2f, the best version v%d's: back to v%d",
				cur.Seq, cur.Aggregate, o.RollbackRatio, best.Aggregate, o.RollbackRatio*best.Aggregate, best.Seq, best.Seq)}, true
	}
	if o.RollbackFailRate < 1 && cur.FailRate > o.RollbackFailRate && cur.Parent != "" {
		for i := range versions {
			p := versions[i]
			if p.Hash == cur.Parent && p.Hash != cur.Hash {
				return RollbackPlan{Rule: RuleFailRate, From: cur.Hash, Target: p.Hash,
					Words: fmt.Sprintf("v%d's executions fail %.0f%% of their tool calls (more than %.0f%%): back to its parent v%d",
						cur.Seq, 100*cur.FailRate, 100*o.RollbackFailRate, p.Seq)}, true
			}
		}
	}
	return RollbackPlan{}, false
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
