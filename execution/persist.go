package execution

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/sepad/sepad/event"
)

// Flush closes every thread (end of input) and returns their executions.
// Executions of turns that never ended are marked incomplete.
func (g *Grouper) Flush() []Execution {
	var out []Execution
	for _, k := range g.sortedKeys() {
		t := g.threads[k]
		out = append(out, g.endTurn(t, &event.Event{}, false)...)
		out = append(out, g.takePending(t)...)
		g.endThread(k)
	}
	return g.keep(out)
}

// CloseIdle closes the threads whose newest event was received before
// now-idle, as Flush does for all of them.
func (g *Grouper) CloseIdle(now time.Time, idle time.Duration) []Execution {
	var out []Execution
	for _, k := range g.sortedKeys() {
		t := g.threads[k]
		if t.Seen.IsZero() || now.Sub(t.Seen) < idle {
			continue
		}
		out = append(out, g.endTurn(t, &event.Event{}, false)...)
		out = append(out, g.takePending(t)...)
		g.endThread(k)
	}
	return g.keep(out)
}

// Held returns the execution a main thread's last Stop holds for the
// person's verdict (the turn's answer), nil when none: a shallow copy,
// to read before the next event.
func (g *Grouper) Held(session string) *Execution {
	t := g.threads[threadKey(session, "")]
	if t == nil || t.Pending == nil {
		return nil
	}
	x := *t.Pending
	return &x
}

// Open reports how many threads hold an open or pending execution.
func (g *Grouper) Open() int { return len(g.threads) }

// Dirty returns the threads changed since the last call, encoded, and the
// keys of threads that ended: what a store must save so that a restart
// resumes exactly here.
func (g *Grouper) Dirty() (put map[string][]byte, del []string) {
	put = map[string][]byte{}
	for k := range g.dirty {
		t, ok := g.threads[k]
		if !ok {
			del = append(del, k)
			continue
		}
		b, err := json.Marshal(t)
		if err != nil {
			// A thread holds only JSON-safe values; this cannot happen.
			panic(fmt.Sprintf("execution: encode thread %s: %v", k, err))
		}
		put[k] = b
	}
	sort.Strings(del)
	g.dirty = map[string]bool{}
	return put, del
}

// Restore loads threads saved with Dirty.
func (g *Grouper) Restore(saved map[string][]byte) error {
	for k, b := range saved {
		var t thread
		if err := json.Unmarshal(b, &t); err != nil {
			return fmt.Errorf("restore open execution %s: %w", k, err)
		}
		g.threads[k] = &t
	}
	return nil
}

func (g *Grouper) sortedKeys() []string {
	keys := make([]string, 0, len(g.threads))
	for k := range g.threads {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
