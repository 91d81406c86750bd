package mutation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
)

// skillAndState loads a skill with its versions and the engine's state of
// it; the caller holds e.mu.
func (e *Engine) skillAndState(key string) (*record.Skill, *SkillState, error) {
	sk, err := e.db.Skill(key)
	if err != nil {
		return nil, nil, err
	}
	st, err := e.state(key)
	return sk, st, err
}

// skillFile is the prompt file of a skill.
func skillFile(sk *record.Skill) string {
	if sk.Kind == "session" {
		return filepath.Join(sk.Project, "CLAUDE.md")
	}
	return sk.Path
}

// ManualRollback restores version to (a hash, hash prefix or vN; "" means
// the baseline, else the best graded version) over the skill's file, with
// the same conflict check as automatic rollbacks. It writes even when
// auto_rollback is off: a person asked for it.
func (e *Engine) ManualRollback(key, to string) (Record, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sk, st, err := e.skillAndState(key)
	if err != nil {
		return Record{}, err
	}
	if err := pinnedRefusal(sk.Display(), st); err != nil {
		return Record{}, err
	}
	if plugin, ok := prompt.PluginOf(sk.Path, e.opts.ClaudeDir); ok && sk.Kind != "session" {
		return Record{}, &proposal.RefusalError{Rule: "plugin_file", Detail: pluginWords(plugin, sk.Name, sk.Path)}
	}
	if sk.Kind != prompt.KindSession {
		// Refused before the file is read, naming `sepad trust`, as
		// evolve is (a project used through the plugin alone).
		if err := e.Writable(sk); err != nil {
			return Record{}, err
		}
	}
	cur, target, err := e.pick(sk, st, to)
	if err != nil {
		return Record{}, err
	}
	if cur.Hash == target.Hash {
		return Record{}, &proposal.RefusalError{Rule: "nothing_to_do", Detail: fmt.Sprintf("the file already holds v%d", cur.Seq)}
	}
	err = e.rollback(sk, st, cur, target, "manual", "", nil)
	if serr := e.saveState(key, st); err == nil {
		err = serr
	}
	return e.lastRecord(key), err
}

// ManualDecision accepts the skill's current version as the baseline, or
// rejects it and rolls back to the baseline.
func (e *Engine) ManualDecision(key string, accept bool) (Record, error) {
	if !accept {
		return e.ManualRollback(key, "")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	sk, st, err := e.skillAndState(key)
	if err != nil {
		return Record{}, err
	}
	var cur *record.Version
	for i := range sk.Versions {
		if sk.Versions[i].Hash == sk.Current {
			cur = &sk.Versions[i]
		}
	}
	if cur == nil {
		return Record{}, &proposal.RefusalError{Rule: "no_version", Detail: "the skill has no current version"}
	}
	if st.Baseline != "" && st.Baseline != cur.Hash {
		st.Status[st.Baseline] = StatusSuperseded
	}
	from := st.Baseline
	st.Baseline, st.Candidate = cur.Hash, ""
	st.Status[cur.Hash] = StatusAccepted
	if err := e.saveState(key, st); err != nil {
		return Record{}, err
	}
	rec := Record{Kind: KindManual, SkillKey: key, Skill: sk.Name, Rule: "manual_accept", From: from, To: cur.Hash, Applied: true,
		Words: fmt.Sprintf("v%d (%s) accepted by hand as the baseline", cur.Seq, cur.Hash)}
	if n, min := cur.Aggregate.N, e.opts.Decide.MinSamples; n < min {
		rec.ThinBaseline = true
		rec.Warning = fmt.Sprintf("warning: v%d has %s, fewer than mutation.min_samples (%d): the baseline is thin. "+
			"It stops running once a candidate replaces it, so candidates will be judged against these %s only "+
			"(with fewer than 2, a candidate is settled at max_samples)", cur.Seq, countOf(n, "scored run"), min, countOf(n, "run"))
		rec.Words += "; " + rec.Warning
	}
	return rec, e.record(rec)
}

// Propose checks a mutator's text and, if every rule passes, writes it to
// the skill's file and registers it as the candidate. With an eval gate
// (EngineOptions.EvalGate, gate.go) the skill's eval suite runs on the
// text first: see ProposeContext.
func (e *Engine) Propose(key string, content []byte, strategy string, po proposal.Options) (Record, error) {
	return e.ProposeContext(context.Background(), key, content, strategy, po)
}

// ProposeContext is Propose with a context for the eval gate's suite run.
// The gate runs outside the engine's lock (a suite takes seconds to
// minutes), after every other rule passed; the text is written only if
// the rules still pass and the baseline is still the one the gate
// compared with.
func (e *Engine) ProposeContext(ctx context.Context, key string, content []byte, strategy string, po proposal.Options) (Record, error) {
	var gate *evals.Verdict
	var gated string // the baseline the gate compared with
	if e.opts.EvalGate != nil {
		c, err := e.checkProposal(key, content, po)
		if err != nil {
			return Record{}, err
		}
		if gate, err = e.runGate(ctx, c); err != nil {
			return Record{}, err
		}
		gated = c.Baseline
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	c, err := e.checkProposalLocked(key, content, po)
	if err != nil {
		return Record{}, err
	}
	if gate != nil && c.Baseline != gated {
		return Record{}, &proposal.RefusalError{Rule: RuleEvalGate, Detail: fmt.Sprintf("the baseline of %s changed from %s to %s while the eval suite ran: propose again", c.Skill, gated, c.Baseline)}
	}
	sk, st, h, cur := c.sk, c.st, c.h, c.cur
	path := skillFile(sk)
	if err := promptfile.WriteFileAtomic(path, content, e.WriteRoots()); err != nil {
		if errors.Is(err, promptfile.ErrOutsideRoots) {
			err = fmt.Errorf("%w: %s", err, trustWords(path, sk.Project))
		}
		return Record{}, err
	}
	nv := record.Version{Hash: promptfile.Hash(content), Content: content, ContentKnown: true}
	if sk.Kind == prompt.KindSession {
		if nv, err = e.sessionProposal(sk, cur, content); err != nil {
			return Record{}, err
		}
	}
	nv.FirstSeen, nv.Source = h.Now, "proposal"
	hash := nv.Hash
	v, err := e.db.PutVersion(record.Skill{Key: sk.Key, Name: sk.Name, Kind: sk.Kind, Project: sk.Project, Path: sk.Path}, nv)
	if err != nil {
		return Record{}, err
	}
	st.Proposals = append(st.Proposals, h.Now)
	if len(st.Proposals) > 50 {
		st.Proposals = st.Proposals[len(st.Proposals)-50:]
	}
	if st.Candidate != "" && st.Status[st.Candidate] == StatusCandidate {
		st.Status[st.Candidate] = StatusSuperseded
	}
	st.Candidate = hash
	st.Status[hash] = StatusCandidate
	if err := e.saveState(key, st); err != nil {
		return Record{}, err
	}
	rec := Record{Kind: "proposal", SkillKey: key, Skill: sk.Name, Rule: "proposal", To: hash, Applied: true,
		Words: fmt.Sprintf("proposal written as v%d (%s)%s; it is the candidate", v.Seq, hash, strategyWords(strategy)), Gate: gate}
	if gate != nil {
		rec.Words += "; " + gate.Words
	}
	if cur != nil {
		rec.From = cur.Hash
	}
	return rec, e.record(rec)
}

// proposalCheck is what checkProposal found: the skill, its state, the
// limits' history, the version in the file, and the gate's candidate.
type proposalCheck struct {
	GateCandidate
	sk  *record.Skill
	st  *SkillState
	h   proposal.History
	cur *record.Version
}

// checkProposal applies every rule of a proposal without writing.
func (e *Engine) checkProposal(key string, content []byte, po proposal.Options) (GateCandidate, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, err := e.checkProposalLocked(key, content, po)
	return c.GateCandidate, err
}

// checkProposalLocked is checkProposal for a caller holding e.mu.
func (e *Engine) checkProposalLocked(key string, content []byte, po proposal.Options) (proposalCheck, error) {
	sk, st, err := e.skillAndState(key)
	if err != nil {
		return proposalCheck{}, err
	}
	if err := pinnedRefusal(sk.Display(), st); err != nil {
		return proposalCheck{}, err
	}
	base, cur := baseAndCurrent(sk, st)
	h, err := e.proposalHistory(key, st, cur, po)
	if err != nil {
		return proposalCheck{}, err
	}
	c := proposalCheck{sk: sk, st: st, h: h, cur: cur,
		GateCandidate: GateCandidate{SkillKey: key, Skill: sk.Name, Path: skillFile(sk), Content: content, Candidate: promptfile.Hash(content), Cases: po.GateCases}}
	if base != nil {
		c.Baseline, c.BaselineContent = base.Hash, base.Content
	}
	var curText []byte // the text a mutator was shown
	if cur != nil && cur.ContentKnown {
		curText = cur.Content
	}
	if sk.Kind == prompt.KindSession {
		// CLAUDE.md: the project file's text, not the manifests
		// (session_propose.go).
		if cur == nil {
			return proposalCheck{}, &proposal.RefusalError{Rule: "unknown_content", Detail: "no version of " + sk.Display() + " is known yet: nothing to propose against"}
		}
		var err error
		if curText, err = SessionText(e.db, sk, cur); err != nil {
			return proposalCheck{}, err
		}
		c.BaselineContent = curText
		if base != nil && base != cur {
			if b, err := SessionText(e.db, sk, base); err == nil {
				c.BaselineContent = b
			}
		}
		c.Candidate = sessionVersionOf(sk, cur, content)
	}
	if err := proposal.Check(c.BaselineContent, content, h, po); err != nil {
		return proposalCheck{}, err
	}
	// What was tried and made things worse is not tried again.
	rs, err := rejectedOf(e.db, sk, st.Status)
	if err != nil {
		return proposalCheck{}, err
	}
	from := c.BaselineContent
	if curText != nil {
		from = curText
	}
	if err := checkRejected(rs, from, content); err != nil {
		return proposalCheck{}, err
	}
	path := c.Path
	if plugin, ok := prompt.PluginOf(path, e.opts.ClaudeDir); ok {
		return proposalCheck{}, &proposal.RefusalError{Rule: "plugin_file", Detail: pluginWords(plugin, sk.Name, path)}
	}
	if !e.isPromptFile(path) {
		return proposalCheck{}, fmt.Errorf("propose: %s: %w", path, promptfile.ErrOutsideRoots)
	}
	if other, claim := e.heldElsewhere(path, e.WriteRoots()); other != "" {
		return proposalCheck{}, &proposal.RefusalError{Rule: "held_by_another_home", Detail: heldWords(path, other, claim)}
	}
	return c, nil
}

// pick returns the version in the file now and the version to restore.
func (e *Engine) pick(sk *record.Skill, st *SkillState, to string) (cur, target *record.Version, err error) {
	h, err := e.inForce(sk)
	if err != nil {
		return nil, nil, err
	}
	for i := range sk.Versions {
		v := &sk.Versions[i]
		if v.Hash == h {
			cur = v
		}
		switch {
		case to == "" && v.Hash == st.Baseline:
			target = v
		case to != "" && (v.Hash == to || len(to) >= 4 && strings.HasPrefix(v.Hash, to) || fmt.Sprintf("v%d", v.Seq) == to):
			target = v
		}
	}
	if to == "" && cur != nil && target != nil && target.Hash == cur.Hash {
		target = nil // the baseline itself degraded: go to the best other version
	}
	if cur == nil {
		return nil, nil, &proposal.RefusalError{Rule: "unknown_content", Detail: fmt.Sprintf("%s holds content sepad never recorded (%s): edit it by hand", skillFile(sk), h)}
	}
	if target == nil && to == "" {
		for i := range sk.Versions {
			v := &sk.Versions[i]
			if v.Hash != cur.Hash && v.ContentKnown && v.Aggregate.Graded && (target == nil || v.Aggregate.Value > target.Aggregate.Value) {
				target = v
			}
		}
	}
	if target == nil {
		if to == "" {
			return nil, nil, &proposal.RefusalError{Rule: "no_target", Detail: fmt.Sprintf("%s has no other graded version whose content sepad has seen, so there is nothing to roll back to", sk.Display())}
		}
		return nil, nil, &proposal.RefusalError{Rule: "no_target", Detail: fmt.Sprintf("no version %q to roll back to", to)}
	}
	if !target.ContentKnown {
		return nil, nil, &proposal.RefusalError{Rule: "content_unknown", Detail: fmt.Sprintf("the content of v%d was never seen", target.Seq)}
	}
	return cur, target, nil
}

func (e *Engine) lastRecord(key string) Record {
	ds, err := e.db.Decisions(key, 1)
	if err != nil || len(ds) == 0 {
		return Record{}
	}
	var r Record
	json.Unmarshal(ds[0].Payload, &r)
	return r
}

// baseAndCurrent returns the skill's baseline (the version in the file
// when there is none yet) and the version in the file.
func baseAndCurrent(sk *record.Skill, st *SkillState) (base, cur *record.Version) {
	for i := range sk.Versions {
		v := &sk.Versions[i]
		if v.Hash == st.Baseline {
			base = v
		}
		if v.Hash == sk.Current {
			cur = v
		}
	}
	if base == nil {
		base = cur
	}
	return base, cur
}

// proposalHistory is what the proposal limits look at, now; the caller
// holds e.mu. SinceChange is counted up to po.MinExecutions only (all the
// too_soon rule needs), so that a version with a long history costs no
// more to check than a new one: automatic mode checks at every commit.
func (e *Engine) proposalHistory(key string, st *SkillState, cur *record.Version, po proposal.Options) (proposal.History, error) {
	h := proposal.History{Recent: st.Proposals, Now: e.opts.Now().UTC()}
	if cur != nil {
		xs, err := e.db.Executions(record.Filter{SkillKey: key, Version: cur.Hash, Limit: max(po.MinExecutions, 1)})
		if err != nil {
			return h, err
		}
		h.SinceChange = len(xs)
	}
	recent, err := e.db.Executions(record.Filter{SkillKey: key, Limit: 3})
	if err != nil {
		return h, err
	}
	for _, x := range recent {
		h.Last3 = append(h.Last3, x.Result.Score)
	}
	return h, nil
}

// ProposalLimits says whether a proposal for the skill would pass the
// limits now (a pin, rate_limit, too_soon, stable), before any text is
// written: a mutator that costs money is only asked when it would. It
// returns the baseline's text, against which a proposal is checked (nil
// when the skill has no version yet).
func (e *Engine) ProposalLimits(key string, po proposal.Options) ([]byte, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	sk, st, err := e.skillAndState(key)
	if err != nil {
		return nil, err
	}
	if err := pinnedRefusal(sk.Display(), st); err != nil {
		return nil, err
	}
	base, cur := baseAndCurrent(sk, st)
	h, err := e.proposalHistory(key, st, cur, po)
	if err != nil {
		return nil, err
	}
	var baseContent []byte
	if base != nil {
		baseContent = base.Content
	}
	return baseContent, proposal.CheckLimits(h, po)
}

// countOf is "1 scored run", "4 scored runs".
func countOf(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}

// strategyWords names a proposal's strategy, or nothing when it has none
// (`sepad propose` without --strategy), never `strategy ""`.
func strategyWords(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(", strategy %q", s)
}
