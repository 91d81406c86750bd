package mutation

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/internal/fswatch"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/watch"
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
	Decide decide.Options
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
	Home string
	// ClaimAtWriteOnly leaves the roots unclaimed at Open: a root is
	// claimed when this engine first writes in it. The CLI's own engine
	// (no daemon running) sets it, so that a command that writes no
	// prompt file (import, label, prune) claims nothing, not even for a
	// --home of another state directory.
	ClaimAtWriteOnly bool
	Debounce         time.Duration
	// Watch is the daemon's shared file watcher (package fswatch); nil:
	// the engine's watcher opens one of its own.
	Watch  *fswatch.Watcher
	Now    func() time.Time
	Logger *slog.Logger
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
	Applied  bool             `json:"applied"`
	Words    string           `json:"words"`
	Decision *decide.Decision `json:"decision,omitempty"`
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
	w    *watch.Watcher

	mu    sync.Mutex
	roots []string
	// foreign are the projects seen in events whose path is not
	// absolute on this system (a Windows path in a log imported on
	// Linux): never watched, never written.
	foreign []string
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
	e := &Engine{db: db, opts: o, log: o.Logger, w: watch.New(o.Debounce),
		states: map[string]*SkillState{}, saved: map[string]string{}, samples: map[string]*versionSample{},
		bestOther: map[string]bestOther{}, kept: map[string]bool{}}
	e.w.SetShared(o.Watch)
	e.keep = keepFor(o)
	for name := range o.Skills {
		e.keep = max(e.keep, keepFor(e.optsFor(name)))
	}
	return e
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
	if !e.opts.ClaimAtWriteOnly {
		e.claimRoots()
	}
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

// addRoot watches a root and records the versions found there. A root
// that is not an absolute path on this system (a project from another
// machine's log: C:\Users\… on Linux) is never resolved against the
// daemon's working directory: it is recorded as foreign, and neither
// watched nor written.
func (e *Engine) addRoot(root string, user bool) {
	if !filepath.IsAbs(root) {
		e.mu.Lock()
		defer e.mu.Unlock()
		if !slices.Contains(e.foreign, root) && len(e.foreign) < maxForeign {
			e.foreign = append(e.foreign, root)
			e.log.Info("project is not a path on this system: not watched, never written", "project", root)
		}
		return
	}
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
	kind := prompt.RootProject
	if user {
		kind = prompt.RootUser
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

// maxForeign bounds the foreign projects remembered (and logged).
const maxForeign = 64

// Foreign returns the projects seen in events that are not paths on this
// system, which are neither watched nor written.
func (e *Engine) Foreign() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.foreign...)
}

// Roots returns the watched roots. Files are written only under those of
// them that are also write roots (WriteRoots).
func (e *Engine) Roots() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.roots...)
}

func (e *Engine) recordChange(c watch.Change, source string) error {
	if c.Removed {
		return nil // the content stays in the store
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if c.Kind == prompt.KindSession {
		return e.sessionFileChange(c)
	}
	sk := record.Skill{Key: c.Key, Name: c.Name, Kind: c.Kind, Project: c.Project}
	if c.Kind != "session" {
		sk.Path = c.Path
	}
	before, _ := e.db.Skill(c.Key)
	v, err := e.db.PutVersion(sk, record.Version{Hash: c.Hash, Content: c.Content, ContentKnown: true, FirstSeen: c.Time, Source: source})
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
func (e *Engine) Observe(execs []record.Scored) {
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

// keepDefault is versionSample.keep when unset: the default aggregate
// window (100) and more than the default max_samples (60).
const keepDefault = 100

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
