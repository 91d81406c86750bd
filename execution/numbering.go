package execution

import "github.com/sepad/sepad/event"

// Numbering of ended threads. An execution started by an event without a
// time of its own (a raw payload: no sepa.ts) is named by its thread's
// part number (execID). A session goes on with the same session_id after
// the idle timeout closed it, after a restart, and after its SessionEnd
// (--resume): if its numbering started again at 1, its new turns would
// take the IDs of its first ones (issue 33 item 10: 3 of 6 executions
// lost). So the number a thread reached outlives the thread: when a
// thread that named an execution by its number ends, the grouper keeps
// its count (Ended, saved by the daemon with its commits, RestoreEnded
// at start), and the thread starts from it when it comes back. Threads
// whose executions are all named by their times (every line the hook
// enriched) keep nothing. One count per such thread is kept for ever: a
// few dozen bytes per session of raw payloads.

// numbered reports whether an execution started by ev is named by its
// part number rather than by ev's time: ev has no time, or only the
// whole seconds of the original SEPA hook's lines.
func numbered(ev *event.Event) bool {
	return ev.Time.IsZero() || ev.Format == event.FormatLegacy
}

// endThread forgets an ended thread, keeping its part count when its
// executions' IDs depend on it.
func (g *Grouper) endThread(key string) {
	if t := g.threads[key]; t != nil && t.Numbered && g.ended[key] != t.Seq {
		g.ended[key] = t.Seq
		g.endedDirty[key] = true
	}
	delete(g.threads, key)
	g.dirty[key] = true
}

// Ended returns the part counts of the threads ended since the last call
// (thread key → the number of parts the thread numbered): what a store
// must keep, beside the open threads (Dirty), so that a session that
// comes back after a restart numbers its parts on.
func (g *Grouper) Ended() map[string]int {
	if len(g.endedDirty) == 0 {
		return nil
	}
	out := make(map[string]int, len(g.endedDirty))
	for k := range g.endedDirty {
		out[k] = g.ended[k]
	}
	g.endedDirty = map[string]bool{}
	return out
}

// RestoreEnded loads part counts saved from Ended.
func (g *Grouper) RestoreEnded(saved map[string]int) {
	for k, n := range saved {
		if n > g.ended[k] {
			g.ended[k] = n
		}
	}
}
