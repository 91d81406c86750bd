package mutation

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

// Version statuses shown by `sepad grades`.
const (
	StatusBaseline   = "baseline"
	StatusCandidate  = "candidate"
	StatusAccepted   = "accepted"
	StatusRejected   = "rejected"
	StatusRolledBack = "rolled back"
	// StatusWouldRollBack is StatusRolledBack with mutation.auto_rollback
	// off: the version is judged as if rolled back, but is still in the file.
	StatusWouldRollBack = "would roll back"
	StatusSuperseded    = "superseded"
	// StatusConflict: a rollback was due but the file had been edited
	// since the version was measured; the edit was left alone.
	StatusConflict = "conflict"
)

// Decision kinds recorded in the store.
const (
	KindDecision = "decision"
	KindRollback = "rollback"
	KindConflict = "conflict"
	KindManual   = "manual"
	// KindWouldRollBack: a rule or a decision would roll back a version a
	// person wrote; it was not rewritten (mutation.rollback_edits: ask).
	KindWouldRollBack = "would_roll_back"
	// KindPin and KindUnpin: a person pinned or unpinned a skill.
	KindPin   = "pin"
	KindUnpin = "unpin"
)

// EngineOptions configure the engine.
type EngineOptions struct {
	Decide Options
	// AutoRollback writes files; false only records what would be done.
	AutoRollback     bool
	RollbackOnF      bool
	RollbackRatio    float64 // 0 turns the rule off
	RollbackFailRate float64 // 1 turns the rule off
	Cooldown         int
	// GradeMin is aggregate.min_samples: safety rules need a graded version.
	GradeMin int
	// UserHome is the directory holding ~/.claude ("" to not watch it).
	UserHome string
	// ClaudeDir is the user's Claude Code directory (~/.claude, or
	// $CLAUDE_CONFIG_DIR), a root rollbacks may write in. Default
	// UserHome/.claude.
	ClaudeDir string
	// ExtraRoots are more project roots to watch, and to write in
	// (mutation.extra_roots).
	ExtraRoots []string
	// InstalledRoots lists the projects where `sepad install` wrote its
	// hook; rollbacks may write in them. It is called at every write, so
	// a project installed while the daemon runs counts at once.
	InstalledRoots func() []string
	// RollbackEdits says whether a version a person wrote is rolled back
	// automatically (RollbackEditsAuto) or only recorded as "would roll
	// back" and told (RollbackEditsAsk, also when empty).
	RollbackEdits string
	// Skills holds per-skill overrides (skills.<name>.mutation), by name.
	Skills map[string]Override
	// Rescore, when set, is how a label changes an execution's result
	// (the label signal, fitness.WithLabel); nil keeps labels beside the
	// score without changing it.
	Rescore func(fitness.Result, reward.Label) fitness.Result
	// Notify, when set, receives the notices for the person (notices.go).
	Notify Notify
	// EvalGate, when set, runs a proposal's eval suite before it is
	// written (mutation.eval_gate; gate.go).
	EvalGate EvalGate
	// GateTimeout, when set, is how long the eval gate may take on one
	// candidate now (0: the gate is off), for callers that wait.
	GateTimeout func() time.Duration
	// Home is this sepad's state directory: the home that claims the
	// roots it writes in (owner.go); "" makes no claims.
	Home     string
	Debounce time.Duration
	Now      func() time.Time
	Logger   *slog.Logger
}

// SkillState is the engine's per-skill state, stored as JSON in the store.
type SkillState struct {
	Baseline  string            `json:"baseline,omitempty"`
	Candidate string            `json:"candidate,omitempty"`
	Status    map[string]string `json:"status,omitempty"`
	// Cooldown counts the executions left before the next decision.
	Cooldown int `json:"cooldown,omitempty"`
	// Proposals are the times of accepted proposals (rate limit).
	Proposals []time.Time `json:"proposals,omitempty"`
	// Pinned is the version a person pinned (sepad pin): while set, the
	// skill's file is never written and no version is decided against.
	Pinned string `json:"pinned,omitempty"`
	// Pending is the last look at the candidate, while it is undecided.
	Pending *Pending `json:"pending,omitempty"`
}

// Record is one entry of the decision log.
type Record struct {
	Kind     string    `json:"kind"`
	Time     time.Time `json:"time"`
	SkillKey string    `json:"skill_key"`
	Skill    string    `json:"skill"`
	// Rule names the safety rule, or "decision" / "manual".
	Rule string `json:"rule"`
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Applied is false when nothing was written (auto_rollback off,
	// conflict, or nothing to write).
	Applied  bool      `json:"applied"`
	Words    string    `json:"words"`
	Decision *Decision `json:"decision,omitempty"`
	// ThinBaseline: a version accepted by hand with fewer than
	// mutation.min_samples scored executions; Warning says so in words.
	ThinBaseline bool   `json:"thin_baseline,omitempty"`
	Warning      string `json:"warning,omitempty"`
	// Notice is what the person was told at their next session (notices.go).
	Notice string `json:"notice,omitempty"`
	// Evidence is a safety rollback's numbers (explain.go).
	Evidence *Evidence `json:"evidence,omitempty"`
	// Gate is the eval gate's verdict on a proposal (gate.go).
	Gate *evals.Verdict `json:"eval_gate,omitempty"`
	note *noteCtx
}

// Engine ties versions, decisions and rollbacks to the store.
type Engine struct {
	db   *store.DB
	opts EngineOptions
	log  *slog.Logger
	w    *Watcher

	mu    sync.Mutex
	roots []string
	// states caches each skill's state (the engine is its only writer);
	// saved states are the JSON last written.
	states map[string]*SkillState
	saved  map[string]string
	// samples caches each version's scores in commit order, so evaluating
	// after every execution costs no store reads.
	samples map[string]*versionSample
	// keep is how many of its oldest and newest scores a versionSample
	// keeps: at least every skill's max_samples (keepFor).
	keep int
	// bestOther caches, per skill, what the baseline's safety check needs
	// of the other versions (see clearlySafe).
	bestOther map[string]bestOther
	// kept marks the instruction files (path NUL hash) whose content is
	// kept for _session rollbacks (session.go).
	kept   map[string]bool
	done   chan struct{}
	cancel context.CancelFunc
}

// NewEngine returns an engine over db; call Open.
func NewEngine(db *store.DB, o EngineOptions) *Engine {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(discard{}, nil))
	}
	if o.GradeMin <= 0 {
		o.GradeMin = 3
	}
	if o.ClaudeDir == "" && o.UserHome != "" {
		o.ClaudeDir = filepath.Join(o.UserHome, ".claude")
	}
	e := &Engine{db: db, opts: o, log: o.Logger, w: NewWatcher(o.Debounce),
		states: map[string]*SkillState{}, saved: map[string]string{}, samples: map[string]*versionSample{},
		bestOther: map[string]bestOther{}, kept: map[string]bool{}}
	e.keep = keepFor(o)
	for name := range o.Skills {
		e.keep = max(e.keep, keepFor(e.optsFor(name)))
	}
	return e
}

// keepFor is how many scores of each end of a version's history a
// decision with o can read: max_samples (or min_samples, or the default
// max_samples, as Options.normalised settles them), at least keepDefault.
func keepFor(o EngineOptions) int {
	return max(keepDefault, o.Decide.MaxSamples, o.Decide.MinSamples, DefaultOptions().MaxSamples)
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Open scans the user's and known projects' prompt files, records their
// versions, and watches them until Close.
func (e *Engine) Open(ctx context.Context) error {
	if err := e.w.Open(ctx); err != nil {
		return fmt.Errorf("watch prompt files: %w", err)
	}
	if e.opts.UserHome != "" {
		e.addRoot(e.opts.UserHome, true)
	}
	for _, r := range e.opts.ExtraRoots {
		e.addRoot(r, false)
	}
	skills, err := e.db.Skills()
	if err != nil {
		return err
	}
	for _, s := range skills {
		if s.Project != "" {
			e.addRoot(s.Project, false)
		}
	}
	ctx, e.cancel = context.WithCancel(ctx)
	e.done = make(chan struct{})
	e.claimRoots()
	go e.run(ctx)
	return nil
}

// Close stops watching.
func (e *Engine) Close() error {
	if e.cancel != nil {
		e.cancel()
		<-e.done
	}
	return e.w.Close()
}

func (e *Engine) run(ctx context.Context) {
	defer close(e.done)
	for {
		select {
		case <-ctx.Done():
			return
		case c := <-e.w.Changes():
			if err := e.recordChange(c, "edit"); err != nil {
				e.log.Error("record version", "file", c.Path, "err", err)
			}
		}
	}
}

// addRoot watches a root and records the versions found there.
func (e *Engine) addRoot(root string, user bool) {
	root = filepath.Clean(root)
	e.mu.Lock()
	for _, r := range e.roots {
		if r == root {
			e.mu.Unlock()
			return
		}
	}
	e.roots = append(e.roots, root)
	e.mu.Unlock()
	kind := RootProject
	if user {
		kind = RootUser
	}
	changes, err := e.w.AddRoot(root, kind)
	if err != nil {
		e.log.Warn("watch prompt files", "root", root, "err", err)
	}
	for _, c := range changes {
		if err := e.recordChange(c, "edit"); err != nil {
			e.log.Error("record version", "file", c.Path, "err", err)
		}
	}
}

// Roots returns the watched roots. Files are written only under those of
// them that are also write roots (WriteRoots).
func (e *Engine) Roots() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.roots...)
}

func (e *Engine) recordChange(c Change, source string) error {
	if c.Removed {
		return nil // the content stays in the store
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.Kind == KindSession {
		return e.sessionFileChange(c)
	}
	sk := store.Skill{Key: c.Key, Name: c.Name, Kind: c.Kind, Project: c.Project}
	if c.Kind != "session" {
		sk.Path = c.Path
	}
	before, _ := e.db.Skill(c.Key)
	v, err := e.db.PutVersion(sk, store.Version{Hash: c.Hash, Content: c.Content, ContentKnown: true, FirstSeen: c.Time, Source: source})
	if err != nil {
		return err
	}
	if before == nil || before.Current != v.Hash {
		e.log.Info("prompt version", "skill", c.Name, "file", c.Path, "version", fmt.Sprintf("v%d", v.Seq), "hash", v.Hash, "source", source)
	}
	return nil
}

// Observe is called after every commit with the executions it stored, in
// commit order: it watches the projects they came from and evaluates each
// execution's skill as of that execution, so that the decisions depend on
// the order of executions only, never on how they were batched: replaying
// a spool into a fresh store makes the same decisions.
func (e *Engine) Observe(execs []store.Scored) {
	for _, s := range execs {
		if s.Exec.Project != "" {
			e.addRoot(s.Exec.Project, false)
		}
	}
	for i := range execs {
		s := &execs[i]
		e.keepInstructions(s)
		if err := e.evaluateAt(s); err != nil {
			e.log.Error("evaluate skill", "skill", s.SkillKey, "err", err)
		}
	}
}

func (e *Engine) state(key string) (*SkillState, error) {
	if st, ok := e.states[key]; ok {
		return st, nil
	}
	b, err := e.db.SkillState(key)
	if err != nil {
		return nil, err
	}
	st := &SkillState{}
	if len(b) > 0 {
		if err := json.Unmarshal(b, st); err != nil {
			return nil, fmt.Errorf("decode state of %s: %w", key, err)
		}
	}
	if st.Status == nil {
		st.Status = map[string]string{}
	}
	e.states[key] = st
	e.saved[key] = string(b)
	return st, nil
}

// saveState writes the state when it changed since the last write.
func (e *Engine) saveState(key string, st *SkillState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if e.saved[key] == string(b) {
		return nil
	}
	if err := e.db.PutSkillState(key, b); err != nil {
		return err
	}
	e.saved[key] = string(b)
	return nil
}

// final statuses: a version that was decided is not decided again.
func final(status string) bool {
	return status == StatusRejected || status == StatusRolledBack || status == StatusWouldRollBack || status == StatusAccepted || status == StatusConflict
}

// evaluateAt applies the safety rules and the decision method to the skill
// of execution x, as of x (executions committed after it do not count).
func (e *Engine) evaluateAt(x *store.Scored) error {
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
	if st.Cooldown, may = CooldownTick(st.Cooldown); !may {
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
	vers := map[string]*store.Version{}
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
	d := Decide(key, base.Hash, cand.Hash, base, cand, o.Decide)
	st.Pending = pendingOf(cur.Hash, &d)
	switch d.Outcome {
	case Accept:
		st.Status[cur.Hash] = StatusAccepted
		st.Status[st.Baseline] = StatusSuperseded
		st.Baseline, st.Candidate = cur.Hash, ""
		e.log.Info("mutation accepted", "skill", sk.Name, "version", fmt.Sprintf("v%d", cur.Seq), "reason", d.Reason, "delta", d.Delta)
		return e.record(Record{Kind: KindDecision, SkillKey: key, Skill: sk.Name, Rule: d.Reason, From: base.Hash, To: cur.Hash, Applied: true, Words: d.Words, Decision: &d})
	case Reject:
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

// versionSample is a version's scored executions in commit order: the
// counts and accumulators over all of them, but only the oldest keep
// scores and the newest keep (a ring), which is all a decision and an
// aggregate read (the candidate's oldest max_samples, the baseline's
// newest max_samples, the newest aggregate window; keep is at least each
// of these). Its memory is bounded by keep, not by the version's number
// of executions.
type versionSample struct {
	// keep bounds first and last (at least 1; 0 means keepDefault).
	keep int
	// first holds the oldest scores, up to keep; last the ones after
	// them, up to keep, then a ring whose oldest entry is at next.
	first, last   []float64
	next          int
	calls, failed int
	// overClaims counts the executions whose answer claimed more than
	// their calls showed (package integrity).
	overClaims int
	// n, mean and m2 are Welford's accumulators over scores, so that an
	// aggregate costs the window, not the history.
	n        int
	mean, m2 float64
	o        aggregate.Options
	// rubric is the rubric version whose scores count (the store's).
	rubric string
	// sig sums each fitness signal over the scores (explain.go).
	sig signalSums
}

// keepDefault is versionSample.keep when unset: the default aggregate
// window (100) and more than the default max_samples (60).
const keepDefault = 100

func (v *versionSample) add(x *store.Scored) {
	rubric := v.rubric
	if rubric == "" {
		rubric = fitness.RubricVersion
	}
	if !x.Result.Scored || x.Result.RubricVersion != rubric {
		return
	}
	sc := x.Result.Score
	if v.keep <= 0 {
		v.keep = keepDefault
	}
	switch {
	case len(v.first) < v.keep:
		v.first = append(v.first, sc)
	case len(v.last) < v.keep:
		v.last = append(v.last, sc)
	default:
		v.last[v.next] = sc
		v.next = (v.next + 1) % v.keep
	}
	v.n++
	d := sc - v.mean
	v.mean += d / float64(v.n)
	v.m2 += d * (sc - v.mean)
	v.calls += len(x.Exec.Calls)
	v.failed += x.Exec.Failures()
	if x.Integrity != nil && x.Integrity.OverClaim {
		v.overClaims++
	}
	v.sig.add(x.Result.Signals)
}

// omitted is how many scores were added and not kept (between first and
// last).
func (v *versionSample) omitted() int { return v.n - len(v.first) - len(v.last) }

// newestFirst returns the kept scores, newest first: all of them while
// omitted is 0, else the newest keep followed by the oldest keep.
func (v *versionSample) newestFirst() []float64 {
	out := make([]float64, 0, len(v.first)+len(v.last))
	for i := range v.last {
		out = append(out, v.last[(v.next+len(v.last)-1-i)%len(v.last)])
	}
	for i := len(v.first) - 1; i >= 0; i-- {
		out = append(out, v.first[i])
	}
	return out
}

// aggregate is the version's aggregate, built as an aggregate.State (the
// same accumulation as the store's, equal to aggregate.Compute over
// all its scores newest first) from the accumulators and the newest
// window of scores.
func (v *versionSample) aggregate() aggregate.Aggregate {
	w := v.o.Window
	if w <= 0 {
		w = 100 // aggregate.Options' default
	}
	recent := v.newestFirst()
	recent = recent[:min(w, len(recent))]
	st := aggregate.State{N: v.n, Mean: v.mean, M2: v.m2, Recent: recent}
	return st.Aggregate(v.o)
}

func (v *versionSample) failRate() float64 {
	if v.calls == 0 {
		return 0
	}
	return float64(v.failed) / float64(v.calls)
}

func (v *versionSample) sample(ver *store.Version) Sample {
	a := v.aggregate()
	return Sample{Hash: ver.Hash, Seq: ver.Seq, N: a.N, Aggregate: a.Value, Mean: a.Mean, SD: a.SD, FailRate: v.failRate(), Scores: v.newestFirst(),
		Omitted: v.omitted(), Signals: v.sig.means(v.n), OverClaims: v.overClaims}
}

// sampleOf returns the cached sample of a version, loading from the store
// the executions committed before seq on first use (after a restart, the
// version's whole history: walked in chunks, oldest first, so that only a
// chunk of it is decoded at a time).
func (e *Engine) sampleOf(key, version string, seq uint64) (*versionSample, error) {
	ck := key + "\x00" + version
	if s, ok := e.samples[ck]; ok {
		return s, nil
	}
	ao := e.db.AggregateOptions()
	s := &versionSample{o: ao, keep: max(e.keep, ao.Window), rubric: e.db.Rubric()}
	if seq > 1 {
		err := e.db.EachOfVersion(key, version, seq-1, func(x *store.Scored) error {
			s.add(x)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	e.samples[ck] = s
	return s, nil
}

// safety applies the protocol's rules (CheckSafety) to the version in
// force and returns the rule that fired and the version to go back to.
func (e *Engine) safety(o EngineOptions, sk *store.Skill, cur *store.Version, vers map[string]*store.Version) (RollbackPlan, *store.Version) {
	stat := func(v *store.Version) VersionStat {
		return VersionStat{Hash: v.Hash, Seq: v.Seq, Parent: v.Parent, N: v.Aggregate.N,
			Graded: v.Aggregate.Graded && v.Aggregate.N >= o.GradeMin, Aggregate: v.Aggregate.Value,
			FailRate: v.FailRate}
	}
	all := make([]VersionStat, 0, len(sk.Versions))
	for _, v := range sk.Versions {
		if vv := vers[v.Hash]; vv != nil {
			all = append(all, stat(vv))
		}
	}
	r, ok := CheckSafety(stat(cur), all, SafetyOptions{RollbackOnF: o.RollbackOnF, RollbackRatio: o.RollbackRatio,
		RollbackFailRate: o.RollbackFailRate, Cooldown: o.Cooldown, MinSamples: safetyMin(o)})
	if !ok {
		return RollbackPlan{}, nil
	}
	return r, vers[r.Target]
}

func (e *Engine) record(r Record) error {
	r.Time = e.opts.Now().UTC()
	e.notify(&r)
	return e.db.PutDecision(r.SkillKey, r.Time, r)
}

// Statuses returns the status of each version of a skill, for display.
func Statuses(db *store.DB, key string) (map[string]string, error) {
	b, err := db.SkillState(key)
	if err != nil || len(b) == 0 {
		return map[string]string{}, err
	}
	var st SkillState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for h, s := range st.Status {
		out[h] = s
	}
	if s := out[st.Baseline]; st.Baseline != "" && s != StatusWouldRollBack && s != StatusConflict {
		out[st.Baseline] = StatusBaseline
	}
	if st.Pinned != "" {
		out[st.Pinned] = StatusPinned
	}
	return out, nil
}

// TrustRoots adds roots whose prompt files are recognised, without
// watching them (commands that run while the daemon is down). Writes
// still need a write root (WriteRoots).
func (e *Engine) TrustRoots(roots ...string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range roots {
		if r != "" {
			e.roots = append(e.roots, filepath.Clean(r))
		}
	}
}
