package mutation

import (
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

// Label stores a label of one execution and applies it in the commit
// order, between the engine's evaluations of executions: the store
// rescores the execution (EngineOptions.Rescore) and updates its
// version's aggregate in the label's transaction, then the engine drops
// its cached sample of that version and looks at the skill again as of
// the label, so a label can settle a pending decision (or trigger a
// safety rule). A label does not count towards a cooldown: only
// executions do. The decision a restarted engine would take from the
// store is the same (its samples are read from the rescored executions).
func (e *Engine) Label(l reward.Label) (*store.LabelApplied, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ap, err := e.db.PutLabel(l, e.opts.Rescore)
	if err != nil {
		return nil, err
	}
	if !ap.Rescored {
		return ap, nil
	}
	x := &ap.Execution
	key := x.SkillKey
	delete(e.samples, key+"\x00"+x.Version)
	delete(e.bestOther, key)
	st, err := e.state(key)
	if err != nil {
		return ap, err
	}
	defer func() {
		if err := e.saveState(key, st); err != nil {
			e.log.Error("save skill state", "skill", key, "err", err)
		}
	}()
	if st.Pinned != "" || st.Cooldown > 0 {
		return ap, nil
	}
	// The version to look at: the candidate under test (a label of the
	// baseline moves the comparison too), else the labelled version.
	version := x.Version
	if st.Candidate != "" && st.Status[st.Candidate] == StatusCandidate {
		version = st.Candidate
	}
	cs, err := e.sampleOf(key, version, ap.Label.Seq)
	if err != nil {
		return ap, err
	}
	if err := e.decideAt(st, e.optsFor(x.Exec.Skill), key, version, cs, ap.Label.Seq); err != nil {
		return ap, err
	}
	return ap, nil
}
