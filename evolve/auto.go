package evolve

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/record"
)

// AutoOptions configure automatic mode (mutation.evolve: auto).
type AutoOptions struct {
	// Mode returns, for a skill name, whether automatic mode is on and the
	// grade below which its version in force evolves (the configuration
	// in force, skills.NAME.mutation included).
	Mode func(skill string) (on bool, below fitness.Grade)
	// MinSamples is mutation.min_samples: the scored executions the
	// version in force needs first.
	MinSamples int
}

// auto is automatic mode's state.
type auto struct {
	o      AutoOptions
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	// since counts, per skill, the executions of version[skill] observed
	// in a row since its last automatic attempt (in this process), and
	// version is the version of the last one: SEPA's "at least 3
	// executions between mutations" also after a rollback, which puts
	// back a version with old executions (the engine's too_soon counts
	// those).
	since   map[string]int
	version map[string]string
	// tried marks skills with an automatic attempt in this process.
	tried map[string]bool
}

// StartAuto turns automatic mode on: Observe then starts evolutions, in
// the background, until Close.
func (e *Evolver) StartAuto(o AutoOptions) {
	ctx, cancel := context.WithCancel(context.Background())
	e.auto = &auto{o: o, ctx: ctx, cancel: cancel, since: map[string]int{}, version: map[string]string{}, tried: map[string]bool{}}
}

// Close stops automatic mode and waits for the evolutions under way
// (their mutators are stopped).
func (e *Evolver) Close() {
	if e.auto == nil {
		return
	}
	e.auto.cancel()
	e.auto.wg.Wait()
}

// Wait waits for the automatic evolutions under way (for tests).
func (e *Evolver) Wait() {
	if e.auto != nil {
		e.auto.wg.Wait()
	}
}

// Observe is called after every commit, after the engine saw the
// executions: for each skill in automatic mode whose version in force
// is the baseline, graded below the configured grade with enough
// executions, and whose limits allow a proposal, it starts one
// evolution in the background (never two at once for one skill).
func (e *Evolver) Observe(execs []record.Scored) {
	a := e.auto
	if a == nil || a.o.Mode == nil {
		return
	}
	seen := map[string]string{}
	var order []string
	a.mu.Lock()
	for i := range execs {
		x := &execs[i]
		if on, _ := a.o.Mode(x.Exec.Skill); !on {
			continue
		}
		if a.version[x.SkillKey] != x.Version {
			a.version[x.SkillKey], a.since[x.SkillKey] = x.Version, 0
		}
		a.since[x.SkillKey]++
		if _, ok := seen[x.SkillKey]; !ok {
			order = append(order, x.SkillKey)
		}
		seen[x.SkillKey] = x.Exec.Skill
	}
	a.mu.Unlock()
	for _, key := range order {
		if err := e.maybeEvolve(key, seen[key]); err != nil {
			e.o.Logger.Error("automatic evolution", "skill", seen[key], "err", err)
		}
	}
}

// maybeEvolve checks one skill's trigger and limits and starts its
// evolution.
func (e *Evolver) maybeEvolve(key, name string) error {
	a := e.auto
	_, below := a.o.Mode(name)
	if e.Running(key) {
		return nil
	}
	a.mu.Lock()
	since, tried, seen := a.since[key], a.tried[key], a.version[key]
	a.mu.Unlock()
	if tried && since < e.o.Proposal.MinExecutions {
		return nil
	}
	sk, err := e.o.DB.Skill(key)
	if err != nil {
		return err
	}
	var cur *record.Version
	for i := range sk.Versions {
		if sk.Versions[i].Hash == sk.Current {
			cur = &sk.Versions[i]
		}
	}
	if cur == nil || !cur.ContentKnown || cur.Hash != seen {
		// The file changed (a rollback, an edit) since the last execution
		// seen: wait for executions of the version now in force.
		return nil
	}
	agg := cur.Aggregate
	if !agg.Graded || agg.N < a.o.MinSamples || fitness.GradeOf(agg.Value).Rank() >= below.Rank() {
		return nil
	}
	st, err := mutation.Statuses(e.o.DB, key)
	if err != nil {
		return err
	}
	if st[cur.Hash] != mutation.StatusBaseline {
		return nil // a candidate is being decided, or a person decides (pinned, would roll back)
	}
	// Failed and refused attempts count against the day's limit too in
	// automatic mode: a mutator that keeps failing (claude not found, no
	// credentials) is retried at most PerDay times a day, not at every
	// third execution.
	if n, err := e.attemptsInDay(key); err != nil {
		return err
	} else if per := e.o.Proposal.PerDay; per > 0 && n >= per {
		e.o.Logger.Debug("automatic evolution waits", "skill", name, "rule", proposal.RuleRateLimit, "attempts", n)
		return nil
	}
	if _, err := e.o.Engine.ProposalLimits(key, e.o.Proposal); err != nil {
		var re *proposal.RefusalError
		if errors.As(err, &re) {
			e.o.Logger.Debug("automatic evolution waits", "skill", name, "rule", re.Rule, "detail", re.Detail)
			return nil
		}
		return err
	}
	if !e.claim(key) {
		return nil
	}
	a.mu.Lock()
	a.since[key], a.tried[key] = 0, true
	a.mu.Unlock()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer e.release(key)
		at, err := e.run(a.ctx, key, RunOptions{Auto: true})
		var re *proposal.RefusalError
		switch {
		case errors.As(err, &re):
			// A limit the choice ran into (a high-risk strategy): told
			// once, nothing was asked.
			e.notify(sk, fmt.Sprintf("sepad did not evolve %s v%d: %s", sk.Display(), cur.Seq, re.Detail), e.o.Now().UTC())
		case err != nil:
			e.o.Logger.Error("automatic evolution", "skill", name, "err", err)
			e.notify(sk, fmt.Sprintf("sepad could not evolve %s v%d: %v", sk.Display(), cur.Seq, err), e.o.Now().UTC())
		default:
			e.o.Logger.Info("automatic evolution", "skill", name, "outcome", at.Outcome, "strategy", at.Strategy)
		}
	}()
	return nil
}

// attemptsInDay counts the skill's recorded attempts in the last 24 hours.
func (e *Evolver) attemptsInDay(key string) (int, error) {
	l, err := readLog(e.o.DB, key)
	if err != nil {
		return 0, err
	}
	now := e.o.Now()
	n := 0
	for _, a := range l.attempts {
		if age := now.Sub(a.Time); age >= 0 && age < 24*time.Hour {
			n++
		}
	}
	return n, nil
}
