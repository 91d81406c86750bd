package transcript

import (
	"math"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sepad/sepad/execution"
)

// Price is what one model costs, in US dollars per million tokens.
type Price struct {
	Input         float64
	Output        float64
	CacheRead     float64
	CacheCreation float64
}

// Prices maps a model name, or a prefix of model names, to its price.
type Prices map[string]Price

// For returns the price of a model: its exact entry, else the longest
// prefix that names it ("claude-sonnet-4-5" prices
// "claude-sonnet-4-5-20250929").
func (p Prices) For(model string) (Price, bool) {
	if pr, ok := p[model]; ok {
		return pr, true
	}
	best, found := "", false
	for k := range p {
		if k != "" && strings.HasPrefix(model, k) && len(k) > len(best) {
			best, found = k, true
		}
	}
	if !found {
		return Price{}, false
	}
	return p[best], true
}

// CostNanoUSD is the cost of tokens by model in billionths of a dollar,
// and whether every model with tokens had a price.
func (p Prices) CostNanoUSD(byModel map[string]Usage) (int64, bool) {
	var nano int64
	known := true
	for m, u := range byModel {
		pr, ok := p.For(m)
		if !ok {
			if u != (Usage{}) {
				known = false
			}
			continue
		}
		// $ per Mtok = 1000 nano-$ per token.
		nano += int64(math.Round(float64(u.Input)*pr.Input*1000 + float64(u.Output)*pr.Output*1000 +
			float64(u.CacheRead)*pr.CacheRead*1000 + float64(u.CacheCreation)*pr.CacheCreation*1000))
	}
	return nano, known
}

// Apply merges a window into an execution: its usage and cost, and a
// failed call (Source "transcript") for every error result whose tool_use
// is in the window and whose tool_use_id no hook reported.
func Apply(x *execution.Execution, w Window, prices Prices) {
	cost, known := prices.CostNanoUSD(w.ByModel)
	x.Usage = &execution.Usage{
		InputTokens: w.Usage.Input, OutputTokens: w.Usage.Output,
		CacheReadTokens: w.Usage.CacheRead, CacheCreationTokens: w.Usage.CacheCreation,
		Messages: w.Messages, Models: w.Models(), CostNanoUSD: cost, CostKnown: known,
		SkippedLines: w.Skipped,
	}
	x.UsageReason = ""
	seen := map[string]bool{}
	for i := range x.Calls {
		if x.Calls[i].ID != "" {
			seen[x.Calls[i].ID] = true
		}
	}
	for _, f := range w.Failures {
		// Only a call whose tool_use was written in this window: a hook's
		// failed call of the previous execution can have its result
		// written just past that execution's end.
		if seen[f.ToolUseID] || f.Tool == "" {
			continue
		}
		seen[f.ToolUseID] = true
		c := execution.ToolCall{
			ID: f.ToolUseID, Name: f.Tool, Failed: true, Done: true, Source: "transcript",
			Error: "refused before any hook (" + f.Kind + "); seen only in the transcript",
			Start: f.Time, End: f.Time,
		}
		at := placeOf(x.Calls, f.Time)
		x.Calls = slices.Insert(x.Calls, at, c)
	}
}

// placeOf is where a call made at t goes among calls: before the first
// hook call that started after it, so a refused Edit stays before the
// Edit that then succeeded (the integrity track and the outcome read the
// calls in order). Without a time it goes last.
func placeOf(calls []execution.ToolCall, t time.Time) int {
	if t.IsZero() {
		return len(calls)
	}
	for i := range calls {
		if calls[i].Source == "" && !calls[i].Start.IsZero() && calls[i].Start.After(t) {
			return i
		}
	}
	return len(calls)
}

// Tracker reads the transcripts of the executions it is given, each from
// where the previous execution of the same file stopped. It remembers one
// State per file; Dirty returns those that moved, for the store. With
// Load set it remembers only the positions not yet committed (Committed
// forgets the others), so its memory is bounded by what one batch moved,
// not by the number of sessions ever read.
type Tracker struct {
	// ClaudeDir is the user's Claude Code configuration directory:
	// transcripts are only read below its projects/.
	ClaudeDir string
	// Prices price the tokens (SetPrices replaces them while the tracker
	// is in use).
	Prices Prices
	// MaxLine bounds a line (default DefaultMaxLine).
	MaxLine int
	// Wait bounds how long after an execution's end its transcript may
	// still be written (default 2s): a window with no record past the
	// end is read again until then.
	Wait time.Duration
	// Load, when set, returns the committed position of a file the
	// tracker does not remember (ok false: never read). Without it the
	// tracker remembers every position it moved.
	Load func(path string) (st State, ok bool, err error)

	states map[string]State
	dirty  map[string]bool
	// reloaded, when set, replaces Prices: a reload of the daemon's
	// configuration sets it from another goroutine.
	reloaded atomic.Pointer[Prices]
}

// SetPrices makes p the prices of the executions enriched from now on;
// safe while another goroutine calls Enrich.
func (t *Tracker) SetPrices(p Prices) { t.reloaded.Store(&p) }

// prices are the prices in force.
func (t *Tracker) prices() Prices {
	if p := t.reloaded.Load(); p != nil {
		return *p
	}
	return t.Prices
}

// Committed tells the tracker that these positions are stored: with Load
// set it forgets each one it still remembers as committed (Load gives it
// back when the file's next execution closes); a position that moved
// since is kept. Without Load it does nothing.
func (t *Tracker) Committed(states []State) {
	if t.Load == nil {
		return
	}
	for _, s := range states {
		if cur, ok := t.states[s.Path]; ok && cur == s && !t.dirty[s.Path] {
			delete(t.states, s.Path)
		}
	}
	if len(t.states) == 0 {
		t.states = nil // a map does not shrink: let a large one go
	}
}

// Remembered is the number of positions the tracker holds in memory.
func (t *Tracker) Remembered() int { return len(t.states) }

// Dirty returns the positions that moved since the last call, sorted by
// path, and forgets that they moved.
func (t *Tracker) Dirty() []State {
	var out []State
	for p := range t.dirty {
		out = append(out, t.states[p])
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	t.dirty = nil
	return out
}

// Enrich reads the execution's window and applies it. now and sleep are
// the caller's clock: while the window has no record past the
// execution's end and now is before end + Wait, it sleeps a little and
// reads again (the transcript lags behind the hooks). It never fails: a
// window that cannot be read leaves Usage nil and says why in
// UsageReason.
func (t *Tracker) Enrich(x *execution.Execution, now func() time.Time, sleep func(time.Duration)) {
	if t.states == nil {
		t.states = map[string]State{}
	}
	path := Locate(x.TranscriptPath, x.SessionID, x.AgentID)
	if path == "" {
		x.UsageReason = "no transcript_path in the events"
		return
	}
	if x.EndedAt.IsZero() {
		x.UsageReason = "no event times: the execution cannot be placed in its transcript"
		return
	}
	wait := t.Wait
	if wait <= 0 {
		wait = 2 * time.Second
	}
	// The wait runs from the execution's end by the clock it is given,
	// never past now+wait: an event's own time (a line dated 2099) must
	// not hold ingestion (issue 33). A backlog, ended long before now,
	// is not waited for.
	end := x.EndedAt
	if n := now(); end.After(n) {
		end = n
	}
	deadline := end.Add(wait)
	st, err := t.position(path)
	if err != nil {
		x.UsageReason = "the transcript's read position cannot be loaded: " + err.Error()
		return
	}
	for {
		w, nst, reason := ReadFile(t.ClaudeDir, st, Options{Until: x.EndedAt, MaxLine: t.MaxLine})
		lagging := reason == ReasonMissing || reason == "" && !w.Past
		if lagging && now().Before(deadline) {
			sleep(min(100*time.Millisecond, deadline.Sub(now())))
			continue
		}
		t.moved(st, nst)
		if reason != "" {
			x.Usage, x.UsageReason = nil, reason
			return
		}
		forkReason := t.addForks(x, &w)
		Apply(x, w, t.prices())
		if w.Partial && w.Messages == 0 {
			x.UsageReason = "transcript ends in an incomplete line"
		}
		if forkReason != "" {
			x.UsageReason = forkReason
		}
		return
	}
}

// addForks adds to w the transcripts of the subagents that ran x's
// skill (`context: fork`): a forked skill's model calls are written
// there, not in the session's transcript. Each subagent's file is read
// from its remembered position up to x's end, like any transcript; the
// subagent has finished by then (its result is the Skill call's). It
// returns why a fork's tokens are missing, or "".
func (t *Tracker) addForks(x *execution.Execution, w *Window) string {
	var missing []string
	for _, agent := range x.ForkAgents {
		path := Locate(x.TranscriptPath, x.SessionID, agent)
		if path == "" {
			missing = append(missing, agent+": no transcript path")
			continue
		}
		st, err := t.position(path)
		if err != nil {
			missing = append(missing, agent+": the read position cannot be loaded: "+err.Error())
			continue
		}
		fw, nst, reason := ReadFile(t.ClaudeDir, st, Options{Until: x.EndedAt, MaxLine: t.MaxLine})
		t.moved(st, nst)
		if reason != "" {
			missing = append(missing, agent+": "+reason)
			continue
		}
		w.Merge(fw)
	}
	if len(missing) == 0 {
		return ""
	}
	return "the forked skill's transcript was not read (" + strings.Join(missing, "; ") + "): its tokens are not counted"
}

// position is where the next read of path starts: remembered, loaded
// from the store, or the file's start when it was never read. A position
// that cannot be loaded is an error: reading from the start would count
// the file's earlier executions again.
func (t *Tracker) position(path string) (State, error) {
	if st, ok := t.states[path]; ok {
		return st, nil
	}
	if t.Load != nil {
		st, ok, err := t.Load(path)
		if err != nil || ok {
			return st, err
		}
	}
	return State{Path: path}, nil
}

// moved remembers a read that moved from st to nst, for Dirty.
func (t *Tracker) moved(st, nst State) {
	if nst == st {
		return
	}
	t.states[nst.Path] = nst
	if t.dirty == nil {
		t.dirty = map[string]bool{}
	}
	t.dirty[nst.Path] = true
}
