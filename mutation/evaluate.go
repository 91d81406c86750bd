package mutation

import (
	"fmt"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/render/words"
	"github.com/sepad/sepad/safety"
)

// final statuses: a version that was decided is not decided again.
func final(status string) bool {
	return status == StatusRejected || status == StatusRolledBack || status == StatusWouldRollBack || status == StatusAccepted || status == StatusConflict
}

// evaluateAt applies the safety rules and the decision method to the skill
// of execution x, as of x (executions committed after it do not count).
func (e *Engine) evaluateAt(x *record.Scored) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	key, version := x.SkillKey, x.Version
	st, err := e.state(key)
	if err != nil {
		return err
	}
	cs, err := e.sampleOf(key, version, x.Seq)
	if err != nil {
		return err
	}
	cs.add(x)
	defer func() {
		if err := e.saveState(key, st); err != nil {
			e.log.Error("save skill state", "skill", key, "err", err)
		}
	}()
	if st.Pinned != "" {
		return nil // a person pinned the skill: nothing is decided
	}
	o := e.optsFor(x.Exec.Skill)
	var may bool
	if st.Cooldown, may = safety.CooldownTick(st.Cooldown); !may {
		return nil
	}
	return e.decideAt(st, o, key, version, cs, x.Seq+1)
}

// decideAt applies the safety rules and the decision method to version of
// skill key, whose sample is cs, as of the commit order before upto (the
// executions and labels committed before it). The caller holds e.mu.
func (e *Engine) decideAt(st *SkillState, o EngineOptions, key, version string, cs *versionSample, upto uint64) error {
	if final(st.Status[version]) && version != st.Baseline {
		return nil
	}
	isBase := st.Baseline != "" && version == st.Baseline
	if !isBase {
		delete(e.bestOther, key) // other versions' aggregates may move
	} else if b, ok := e.bestOther[key]; ok && b.baseline == version && e.clearlySafe(o, cs, b.best) {
		// Most executions are of the baseline: skip the store read and the
		// other versions' aggregates when no safety rule can fire.
		return nil
	}
	sk, err := e.db.Skill(key)
	if err != nil {
		return err
	}
	vers := map[string]*record.Version{}
	for i := range sk.Versions {
		v := &sk.Versions[i]
		vers[v.Hash] = v
		// Aggregates as of this execution, not as of the whole batch.
		smp, err := e.sampleOf(key, v.Hash, upto)
		if err != nil {
			return err
		}
		v.Aggregate, v.FailRate = smp.aggregate(), smp.failRate()
	}
	cur := vers[version]
	if cur == nil {
		return nil
	}
	if isBase {
		// Nothing to decide about the baseline itself, but the safety
		// rules watch it too: an accepted version can degrade later.
		best := 0.0
		for h, v := range vers {
			if h != version && v.Aggregate.Graded && v.Aggregate.N >= o.GradeMin && fitness.GradeOf(v.Aggregate.Value) != fitness.F {
				best = max(best, v.Aggregate.Value)
			}
		}
		e.bestOther[key] = bestOther{baseline: version, best: best}
		if s := st.Status[version]; s == StatusWouldRollBack || s == StatusConflict {
			return nil // already told; a person decides (sepad rollback, pin)
		}
		if plan, target := e.safety(o, sk, cur, vers); plan.Rule != "" {
			return e.rollback(sk, st, cur, target, plan.Rule, plan.Words+e.signalWords(key, cur, target, upto), nil)
		}
		return nil
	}
	if st.Baseline == "" || vers[st.Baseline] == nil {
		if cur.Aggregate.N >= o.Decide.MinSamples {
			st.Baseline = cur.Hash
			st.Status[cur.Hash] = StatusBaseline
			e.log.Info("baseline", "skill", sk.Name, "version", fmt.Sprintf("v%d", cur.Seq), "aggregate", cur.Aggregate.Value)
		}
		return nil
	}
	if cur.Hash != st.Candidate {
		if st.Candidate != "" && st.Status[st.Candidate] == StatusCandidate {
			st.Status[st.Candidate] = StatusSuperseded
		}
		st.Candidate = cur.Hash
		st.Status[cur.Hash] = StatusCandidate
	}
	if plan, target := e.safety(o, sk, cur, vers); plan.Rule != "" {
		return e.rollback(sk, st, cur, target, plan.Rule, plan.Words+e.signalWords(key, cur, target, upto), nil)
	}
	bs, _ := e.sampleOf(key, st.Baseline, upto)
	base, cand := bs.sample(vers[st.Baseline]), cs.sample(cur)
	d := decide.Decide(key, base.Hash, cand.Hash, base, cand, o.Decide)
	words.Explain(&d)
	st.Pending = pendingOf(cur.Hash, &d)
	switch d.Outcome {
	case decide.Accept:
		st.Status[cur.Hash] = StatusAccepted
		st.Status[st.Baseline] = StatusSuperseded
		st.Baseline, st.Candidate = cur.Hash, ""
		e.log.Info("mutation accepted", "skill", sk.Name, "version", fmt.Sprintf("v%d", cur.Seq), "reason", d.Reason, "delta", d.Delta)
		return e.record(Record{Kind: KindDecision, SkillKey: key, Skill: sk.Name, Rule: d.Reason, From: base.Hash, To: cur.Hash, Applied: true, Words: d.Words, Decision: &d})
	case decide.Reject:
		st.Status[cur.Hash] = StatusRejected
		e.log.Info("mutation rejected", "skill", sk.Name, "version", fmt.Sprintf("v%d", cur.Seq), "reason", d.Reason, "delta", d.Delta)
		return e.rollback(sk, st, cur, vers[st.Baseline], d.Reason, "", &d)
	}
	return nil
}

// bestOther is, for a skill's baseline, the best aggregate among its other
// versions that a safety rule could roll back to, as of the last full check.
type bestOther struct {
	baseline string
	best     float64
}

// clearlySafe reports whether no safety rule can fire for a baseline with
// sample cs, given the best other version's aggregate. It errs towards
// false: a false only costs a full check.
func (e *Engine) clearlySafe(o EngineOptions, cs *versionSample, best float64) bool {
	agg := cs.aggregate()
	if !agg.Graded || agg.N < safetyMin(o) {
		return true // safety rules never judge a version on little evidence
	}
	switch {
	case o.RollbackOnF && fitness.GradeOf(agg.Value) == fitness.F:
		return false
	case o.RollbackRatio > 0 && agg.Value <= o.RollbackRatio*best:
		return false
	case o.RollbackFailRate < 1 && cs.failRate() >= o.RollbackFailRate:
		return false
	}
	return true
}

// safetyMin is the scored executions a version needs before a safety
// rule may roll it back: mutation.min_samples, and at least graded.
func safetyMin(o EngineOptions) int {
	return max(o.GradeMin, o.Decide.MinSamples)
}

// safety applies the protocol's rules (safety.Check) to the version in
// force and returns the rule that fired and the version to go back to.
func (e *Engine) safety(o EngineOptions, sk *record.Skill, cur *record.Version, vers map[string]*record.Version) (safety.RollbackPlan, *record.Version) {
	stat := func(v *record.Version) safety.VersionStat {
		s := safety.VersionStat{Hash: v.Hash, Seq: v.Seq, Parent: v.Parent, N: v.Aggregate.N,
			Graded: v.Aggregate.Graded && v.Aggregate.N >= o.GradeMin, Aggregate: v.Aggregate.Value,
			FailRate: v.FailRate, Mutator: v.Source == "proposal"}
		if smp, ok := e.samples[sk.Key+"\x00"+v.Hash]; ok {
			s.Models = smp.modelNames() // the runs decideAt counted, as of this execution
		}
		return s
	}
	all := make([]safety.VersionStat, 0, len(sk.Versions))
	for _, v := range sk.Versions {
		if vv := vers[v.Hash]; vv != nil {
			all = append(all, stat(vv))
		}
	}
	r, ok := safety.Check(stat(cur), all, safety.Options{RollbackOnF: o.RollbackOnF, RollbackRatio: o.RollbackRatio,
		RollbackFailRate: o.RollbackFailRate, Cooldown: o.Cooldown, MinSamples: safetyMin(o)})
	if !ok {
		return safety.RollbackPlan{}, nil
	}
	return r, vers[r.Target]
}
