package evolve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// HighRiskPerDay is the most high-risk mutations per skill in any 24
// hours (SEPA's limit).
const HighRiskPerDay = 2

// Options configure an Evolver.
type Options struct {
	DB     *store.DB
	Engine *mutation.Engine
	// Mutator returns the mutator for a skill name (the configuration's
	// mutation.mutator, else Claude Code).
	Mutator func(skill string) Mutator
	// Proposal are the proposal rules and limits (the API's: the
	// defaults).
	Proposal proposal.Options
	// Notify receives automatic mode's notices (mutation.Notify).
	Notify mutation.Notify
	Now    func() time.Time
	Logger *slog.Logger
	// Timeout bounds one attempt's mutator run (mutation.mutator_timeout,
	// read at each attempt: a reloaded configuration applies; default
	// DefaultTimeout).
	Timeout func() time.Duration
	// EditBudget is the share of a text one attempt may change
	// (mutation.edit_budget, read at each attempt; default
	// DefaultEditBudget).
	EditBudget func() float64
	// Evidence is how many of the version's newest executions are read
	// for signals and evidence (default 200).
	Evidence int
}

// Evolver runs evolution attempts: for `sepad evolve` (the API) and for
// automatic mode, never two at once for one skill.
type Evolver struct {
	o       Options
	mu      sync.Mutex
	running map[string]bool
	auto    *auto
}

// New returns an Evolver.
func New(o Options) *Evolver {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Timeout == nil {
		o.Timeout = func() time.Duration { return DefaultTimeout }
	}
	if o.Evidence <= 0 {
		o.Evidence = 200
	}
	if o.Proposal.MaxRatio == 0 {
		o.Proposal = proposal.DefaultOptions()
	}
	return &Evolver{o: o, running: map[string]bool{}}
}

// MaxDuration bounds how long Run takes: the mutator's timeout, the eval
// gate's (mutation.eval_gate), and the reading and writing around it.
func (e *Evolver) MaxDuration() time.Duration {
	return e.timeout() + e.o.Engine.GateTimeout() + 30*time.Second
}

func (e *Evolver) timeout() time.Duration {
	if d := e.o.Timeout(); d > 0 {
		return d
	}
	return DefaultTimeout
}

// RunOptions are one attempt's options.
type RunOptions struct {
	// Strategy, when set, skips the choice.
	Strategy string
	// DryRun builds the request and returns it: nothing is sent or
	// recorded.
	DryRun bool
	// Auto marks automatic mode: every step is a notice.
	Auto bool
	// Force evolves a stable skill anyway (sepad evolve --force), as
	// sepad propose --force proposes to one: the stable rule is the one
	// left out; every other rule and limit applies.
	Force bool
}

// proposalOptions are the proposal rules and limits of one attempt.
func (e *Evolver) proposalOptions(ro RunOptions) proposal.Options {
	po := e.o.Proposal
	if ro.Force {
		po.StableWindow = 0
	}
	return po
}

// claim marks a skill's evolution as running; release ends it.
func (e *Evolver) claim(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running[key] {
		return false
	}
	e.running[key] = true
	return true
}

func (e *Evolver) release(key string) {
	e.mu.Lock()
	delete(e.running, key)
	e.mu.Unlock()
}

// Running reports whether an evolution of the skill is under way.
func (e *Evolver) Running(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.running[key]
}

// prepared is an attempt ready to send.
type prepared struct {
	sk  *record.Skill
	cur *record.Version
	// text is the file's text at cur, which the mutator is shown: cur's
	// content, or for CLAUDE.md the project file's (mutation.SessionText).
	text    []byte
	attempt Attempt
	request string
	// held are the eval cases the request held out: the gate runs them.
	held []string
}

// prepare reads the skill, chooses the strategy and builds the request.
func (e *Evolver) prepare(key string, ro RunOptions) (*prepared, error) {
	sk, err := e.o.DB.Skill(key)
	if err != nil {
		return nil, err
	}
	var cur *record.Version
	for i := range sk.Versions {
		if sk.Versions[i].Hash == sk.Current {
			cur = &sk.Versions[i]
		}
	}
	if cur == nil || !cur.ContentKnown {
		return nil, &proposal.RefusalError{Rule: "unknown_content", Detail: fmt.Sprintf("the text of %s's version in force was never seen: nothing to mutate", sk.Display())}
	}
	text := cur.Content
	if sk.Name == execution.SessionSkill {
		// Its versions are manifests: the one file offered is the
		// project's CLAUDE.md, which sepad may write.
		if text, err = mutation.SessionText(e.o.DB, sk, cur); err != nil {
			return nil, err
		}
	}
	xs, err := e.o.DB.Executions(record.Filter{SkillKey: key, Version: cur.Hash, Limit: e.o.Evidence})
	if err != nil {
		return nil, err
	}
	l, err := readLog(e.o.DB, key)
	if err != nil {
		return nil, err
	}
	m, deltas := newStats()
	l.stats(m, deltas)
	stats := finishStats(m, deltas)
	seed := NewSeed()
	if n := len(l.attempts); n > 0 {
		seed = l.attempts[n-1].Seed
	}
	draw := len(l.attempts)
	u := Draw(seed, draw)
	sigs := Signals(xs)
	var choice Choice
	if ro.Strategy != "" {
		if choice, err = Named(ro.Strategy); err != nil {
			return nil, err
		}
	} else {
		choice = Choose(sigs, history(stats), u)
	}
	agg := cur.Aggregate
	grade := string(fitness.GradeOf(agg.Value))
	if !agg.Graded {
		grade = "ungraded"
	}
	file := filepath.Base(sk.Path)
	if sk.Name == execution.SessionSkill || sk.Path == "" {
		file = "CLAUDE.md"
	}
	base, err := e.baseline(key, sk, cur, text)
	if err != nil {
		return nil, err
	}
	rejected, err := mutation.RejectedEdits(e.o.DB, key)
	if err != nil {
		return nil, err
	}
	cases, held := suiteCases(sk.Path)
	po := e.proposalOptions(ro)
	req, err := Build(Input{Rejected: rejected, Cases: cases, HeldOut: len(held), Skill: sk.Display(), File: file, Version: cur.Seq, Grade: grade, Score: agg.Value, N: agg.N, Text: text,
		Choice: choice, Signals: sigs, Runs: Worst(xs, WorstRuns), Best: Best(xs, BestRuns, WorstRuns),
		MinBytes: int(po.MinRatio*float64(len(base)) + 0.999), MaxBytes: int(po.MaxRatio * float64(len(base))),
		EditBytes: Budget(text, e.editBudget())})
	if err != nil {
		return nil, err
	}
	a := Attempt{Kind: KindEvolve, SkillKey: key, Skill: sk.Name, From: cur.Hash, FromSeq: cur.Seq,
		Strategy: choice.Strategy, Risk: choice.Risk, By: choice.By, Reason: choice.Reason, Weights: choice.Weights,
		Seed: seed, Draw: draw, U: u, Signals: sigs, History: history(stats), BaseScore: round4(agg.Value), BaseGrade: grade, BaseN: agg.N,
		RequestBytes: len(req), Auto: ro.Auto}
	return &prepared{sk: sk, cur: cur, text: text, attempt: a, request: req, held: held}, nil
}

// baseline is the text proposals are checked against: the baseline's,
// else the version in force's (text).
func (e *Evolver) baseline(key string, sk *record.Skill, cur *record.Version, text []byte) ([]byte, error) {
	st, err := mutation.Statuses(e.o.DB, key)
	if err != nil {
		return nil, err
	}
	for _, v := range sk.Versions {
		if st[v.Hash] != mutation.StatusBaseline || !v.ContentKnown || v.Hash == cur.Hash {
			continue
		}
		if sk.Name != execution.SessionSkill {
			return v.Content, nil
		}
		if b, err := mutation.SessionText(e.o.DB, sk, &v); err == nil {
			return b, nil
		}
	}
	return text, nil
}

// highRisk refuses a third high-risk mutation in 24 hours.
func (e *Evolver) highRisk(key string, now time.Time) error {
	l, err := readLog(e.o.DB, key)
	if err != nil {
		return err
	}
	var n int
	var oldest time.Time
	for _, a := range l.attempts {
		if a.Risk == RiskHigh && a.Outcome == OutcomeCandidate && now.Sub(a.Time) < 24*time.Hour && now.Sub(a.Time) >= 0 {
			if n == 0 || a.Time.Before(oldest) {
				oldest = a.Time
			}
			n++
		}
	}
	if n >= HighRiskPerDay {
		return &proposal.RefusalError{Rule: RuleHighRisk, Detail: fmt.Sprintf("%d high-risk mutations of this skill in the last 24 hours (limit %d); the next is allowed at %s",
			n, HighRiskPerDay, oldest.Add(24*time.Hour).UTC().Format(time.RFC3339))}

	}
	return nil
}

// Run makes one evolution attempt of a skill: the choice, the request,
// the mutator, and the proposal through the engine (every rule and limit
// applies). The limits are checked before the mutator is asked: a limit
// refusal is returned as a *proposal.RefusalError and nothing is
// recorded. Once the mutator was asked, the attempt is recorded whatever
// came of it; a failed or refused attempt changes nothing and is returned
// with Applied false and a nil error.
func (e *Evolver) Run(ctx context.Context, key string, ro RunOptions) (Attempt, error) {
	if !e.claim(key) {
		return Attempt{}, ErrBusy
	}
	defer e.release(key)
	return e.run(ctx, key, ro)
}

// run is Run for a caller that claimed the skill.
func (e *Evolver) run(ctx context.Context, key string, ro RunOptions) (Attempt, error) {
	p, err := e.prepare(key, ro)
	if err != nil {
		return Attempt{}, err
	}
	a := p.attempt
	if ro.DryRun {
		// When it was asked: a dry run is not recorded, but its answer
		// is a document with a time like any attempt's.
		a.DryRun, a.Request, a.Time = true, p.request, e.o.Now().UTC()
		a.Words = fmt.Sprintf("dry run: strategy %s (%s risk; %s); request of %d bytes, not sent", a.Strategy, a.Risk, a.Reason, len(p.request))
		return a, nil
	}
	now := e.o.Now().UTC()
	if _, err := e.o.Engine.ProposalLimits(key, e.proposalOptions(ro)); err != nil {
		return Attempt{}, err
	}
	if a.Risk == RiskHigh {
		if err := e.highRisk(key, now); err != nil {
			return Attempt{}, err
		}
	}
	// A mutator costs money: ask none for a file sepad may not write.
	if err := e.o.Engine.Writable(p.sk); err != nil {
		return Attempt{}, fmt.Errorf("evolve %s: %w", p.sk.Display(), err)
	}
	mut := e.o.Mutator(p.sk.Name)
	a.Mutator = mut.Name()
	if ro.Auto {
		e.notify(p.sk, fmt.Sprintf("sepad is evolving %s v%d (%s, %.1f over %d runs) with strategy %s (%s risk): %s. Turn off: mutation.evolve: off",
			p.sk.Display(), p.cur.Seq, a.BaseGrade, a.BaseScore, a.BaseN, a.Strategy, a.Risk, a.Reason), now)
	}
	e.o.Logger.Info("evolve", "skill", p.sk.Name, "version", fmt.Sprintf("v%d", p.cur.Seq), "strategy", a.Strategy, "by", a.By, "mutator", a.Mutator, "auto", ro.Auto)
	mctx, cancel := context.WithTimeout(ctx, e.timeout())
	ans, merr := mut.Mutate(mctx, p.request)
	cancel()
	a.DurationMS = ans.Duration.Milliseconds()
	if ans.HasCost {
		c := ans.CostUSD
		a.CostUSD = &c
		a.InputTokens, a.OutputTokens = ans.InputTokens, ans.OutputTokens
	}
	if merr != nil {
		if !errors.Is(merr, ErrMutator) {
			merr = fmt.Errorf("%w: %v", ErrMutator, merr)
		}
		a.Outcome, a.Rule, a.Error = OutcomeFailed, RuleMutatorFailed, merr.Error()
		a.Words = fmt.Sprintf("evolve %s with %s: %s; nothing changed", p.sk.Display(), a.Strategy, merr.Error())
		return a, e.record(p.sk, &a, ro.Auto)
	}
	text, perr := e.bound(p, &a, ans.Text)
	var rec mutation.Record
	if perr == nil {
		// The eval gate judges the answer on the cases the mutator was
		// not shown (a suite of one case is shown, and gated, whole).
		po := e.proposalOptions(ro)
		po.GateCases = p.held
		rec, perr = e.o.Engine.ProposeContext(ctx, key, text, a.Strategy, po)
	}
	var refusal *proposal.RefusalError
	switch {
	case errors.As(perr, &refusal):
		a.Outcome, a.Rule, a.Error = OutcomeRefused, refusal.Rule, perr.Error()
		a.Words = fmt.Sprintf("evolve %s with %s: the mutator's answer was refused: %s; nothing changed", p.sk.Display(), a.Strategy, refusal.Detail)
		return a, e.record(p.sk, &a, ro.Auto)
	case perr != nil:
		a.Outcome, a.Rule, a.Error = OutcomeFailed, RuleMutatorFailed, perr.Error()
		a.Words = fmt.Sprintf("evolve %s with %s: the proposal failed: %v; nothing changed", p.sk.Display(), a.Strategy, perr)
		if err := e.record(p.sk, &a, ro.Auto); err != nil {
			return a, err
		}
		return a, perr
	}
	a.Outcome, a.Rule, a.Applied, a.To = OutcomeCandidate, KindEvolve, true, rec.To
	if v, err := e.o.DB.Version(key, rec.To); err == nil {
		a.ToSeq = v.Seq
	}
	gate := ""
	if rec.Gate != nil {
		gate = "; " + rec.Gate.Words
	}
	edits := ""
	if len(a.Edits) > 0 {
		edits = fmt.Sprintf("; %s, %d of %d bytes allowed: %s", count(len(a.Edits), "edit", "edits"), a.ChangedBytes, a.AllowedBytes, editWords(a.Edits))
	}
	a.Words = fmt.Sprintf("evolved %s v%d → v%d with strategy %s (%s risk; %s)%s%s%s; v%d is the candidate. Undo: sepad rollback %s --to v%d",
		p.sk.Display(), a.FromSeq, a.ToSeq, a.Strategy, a.Risk, a.Reason, costWords(a), edits, gate, a.ToSeq, p.sk.Display(), a.FromSeq)
	return a, e.record(p.sk, &a, ro.Auto)
}

// bound turns the mutator's answer into the proposed text: an edit list
// applied to the exact bytes measured, or a whole text, either way held
// to the edit budget by its diff.
func (e *Evolver) bound(p *prepared, a *Attempt, answer []byte) ([]byte, error) {
	text := Unwrap(answer)
	if edits, ok := ParseEdits(answer); ok {
		a.Edits = edits
		t, err := ApplyEdits(p.text, edits)
		if err != nil {
			return nil, err
		}
		text = t
	}
	changed, allowed, err := checkBudget(p.text, text, e.editBudget())
	a.ChangedBytes, a.AllowedBytes = changed, allowed
	return text, err
}

func (e *Evolver) editBudget() float64 {
	if e.o.EditBudget != nil {
		if b := e.o.EditBudget(); b > 0 {
			return b
		}
	}
	return DefaultEditBudget
}

func costWords(a Attempt) string {
	if a.CostUSD == nil {
		return ""
	}
	if *a.CostUSD == 0 {
		return fmt.Sprintf(" by %s for $0", a.Mutator)
	}
	return fmt.Sprintf(" by %s for $%.4f", a.Mutator, *a.CostUSD)
}

// record writes the attempt in the skill's decision log, and in
// automatic mode tells the person.
func (e *Evolver) record(sk *record.Skill, a *Attempt, auto bool) error {
	a.Time = e.o.Now().UTC()
	if auto {
		a.Notice = "sepad " + a.Words
		e.notify(sk, a.Notice, a.Time)
	}
	e.o.Logger.Info("evolve attempt", "skill", sk.Name, "outcome", a.Outcome, "rule", a.Rule, "strategy", a.Strategy, "to", a.To)
	return e.o.DB.PutDecision(sk.Key, a.Time, a)
}

func (e *Evolver) notify(sk *record.Skill, text string, at time.Time) {
	if e.o.Notify == nil {
		return
	}
	if err := e.o.Notify(sk.Project, text, at); err != nil {
		e.o.Logger.Warn("notice not written", "skill", sk.Name, "err", err)
	}
}
