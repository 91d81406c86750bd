package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

// With Load set the tracker keeps only the positions not yet committed:
// after Committed it remembers nothing, and the file's next execution
// reads on from the loaded position, exactly as a tracker that kept it in
// memory does (a tracker that started from the file's beginning instead
// would count the first execution's message again).
func TestTrackerForgetsCommittedPositions(t *testing.T) {
	dir, proj := claudeDir(t)
	p := filepath.Join(proj, "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines(t, "session.jsonl"), "")), 0o600); err != nil {
		t.Fatal(err)
	}
	ends := []time.Time{ts("2026-11-24T04:49:04.300Z"), ts("2026-11-24T04:49:04.81865119Z")}
	late := func() time.Time { return ends[1].Add(time.Hour) } // a backlog: no waiting
	nosleep := func(time.Duration) { t.Error("slept") }
	run := func(tr *Tracker, commit func([]State)) []*execution.Usage {
		var us []*execution.Usage
		for _, end := range ends {
			x := &execution.Execution{SessionID: "s", TranscriptPath: p, EndedAt: end}
			tr.Enrich(x, late, nosleep)
			if x.Usage == nil {
				t.Fatalf("no usage: %s", x.UsageReason)
			}
			us = append(us, x.Usage)
			commit(tr.Dirty())
		}
		return us
	}
	kept := run(&Tracker{Wait: time.Second, ClaudeDir: dir}, func([]State) {})

	stored := map[string]State{} // what a store holds
	tr := &Tracker{Wait: time.Second, ClaudeDir: dir, Load: func(path string) (State, bool, error) {
		st, ok := stored[path]
		return st, ok, nil
	}}
	got := run(tr, func(d []State) {
		for _, s := range d {
			stored[s.Path] = s
		}
		tr.Committed(d)
		if n := tr.Remembered(); n != 0 {
			t.Errorf("%d positions remembered after their commit", n)
		}
	})
	for i := range kept {
		if got[i].Messages != kept[i].Messages || got[i].InputTokens != kept[i].InputTokens {
			t.Errorf("execution %d: %+v with Load, %+v kept in memory", i, got[i], kept[i])
		}
	}
	if got[0].Messages != 1 || got[1].Messages != 3 || got[1].InputTokens != 360 {
		t.Errorf("usages %+v %+v", got[0], got[1])
	}

	// A position not committed yet is kept; a position that cannot be
	// loaded leaves the usage absent rather than read from the start.
	tr2 := &Tracker{Wait: time.Second, ClaudeDir: dir, Load: func(string) (State, bool, error) { return State{}, false, nil }}
	x := &execution.Execution{SessionID: "s", TranscriptPath: p, EndedAt: ends[0]}
	tr2.Enrich(x, late, nosleep)
	d := tr2.Dirty()
	tr2.Committed([]State{{Path: p, Offset: d[0].Offset - 1}})
	if tr2.Remembered() != 1 {
		t.Errorf("a position other than the committed one was forgotten")
	}
	tr3 := &Tracker{Wait: time.Second, ClaudeDir: dir, Load: func(string) (State, bool, error) { return State{}, false, errors.New("disk on fire") }}
	y := &execution.Execution{SessionID: "s", TranscriptPath: p, EndedAt: ends[1]}
	tr3.Enrich(y, late, nosleep)
	if y.Usage != nil || !strings.Contains(y.UsageReason, "disk on fire") {
		t.Errorf("load failure: usage %+v reason %q", y.Usage, y.UsageReason)
	}
}

// SetPrices (a reload of the daemon's configuration) prices the
// executions read after it, not those before; it may run while another
// goroutine enriches (go test -race checks that).
func TestTrackerSetPrices(t *testing.T) {
	dir, proj := claudeDir(t)
	p := filepath.Join(proj, "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines(t, "session.jsonl"), "")), 0o600); err != nil {
		t.Fatal(err)
	}
	ends := []time.Time{ts("2026-11-24T04:49:04.300Z"), ts("2026-11-24T04:49:04.81865119Z")}
	late := func() time.Time { return ends[1].Add(time.Hour) }
	nosleep := func(time.Duration) {}
	tr := &Tracker{Wait: time.Second, ClaudeDir: dir, Prices: Prices{"claude-opus": {Input: 1, Output: 1, CacheRead: 1, CacheCreation: 1}}}
	enrich := func(end time.Time) *execution.Usage {
		x := &execution.Execution{SessionID: "s", TranscriptPath: p, EndedAt: end}
		tr.Enrich(x, late, nosleep)
		if x.Usage == nil || !x.Usage.CostKnown {
			t.Fatalf("no cost: %+v %s", x.Usage, x.UsageReason)
		}
		return x.Usage
	}
	first := enrich(ends[0])
	done := make(chan struct{})
	go func() {
		tr.SetPrices(Prices{"claude-opus": {Input: 1000, Output: 1000, CacheRead: 1000, CacheCreation: 1000}})
		close(done)
	}()
	<-done
	second := enrich(ends[1])
	tokens := func(u *execution.Usage) int64 {
		return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheCreationTokens
	}
	// $1 per million tokens is 1,000 nano-dollars a token; $1,000 per million is 1,000,000.
	if want := tokens(first) * 1000; first.CostNanoUSD != want {
		t.Errorf("before the reload: %d nano-USD, want %d", first.CostNanoUSD, want)
	}
	if want := tokens(second) * 1_000_000; second.CostNanoUSD != want {
		t.Errorf("after the reload: %d nano-USD, want %d", second.CostNanoUSD, want)
	}
}

// A `context: fork` skill's model calls are written in its subagent's
// transcript: the skill's execution counts them beside the session's,
// once (a later execution does not count them again), and an execution
// whose fork transcript is missing keeps the session's tokens and says
// what it left out.
func TestTrackerForkTokens(t *testing.T) {
	dir, proj := claudeDir(t)
	main := filepath.Join(proj, "s.jsonl")
	body := []byte(strings.Join(lines(t, "session.jsonl"), ""))
	if err := os.WriteFile(main, body, 0o600); err != nil {
		t.Fatal(err)
	}
	fork := Locate(main, "s", "a1")
	if err := os.MkdirAll(filepath.Dir(fork), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fork, body, 0o600); err != nil {
		t.Fatal(err)
	}
	end := ts("2026-11-24T04:49:04.81865119Z")
	late := func() time.Time { return end.Add(time.Hour) }
	nosleep := func(time.Duration) {}
	enrich := func(tr *Tracker, agents ...string) *execution.Execution {
		x := &execution.Execution{SessionID: "s", TranscriptPath: main, EndedAt: end, ForkAgents: agents}
		tr.Enrich(x, late, nosleep)
		if x.Usage == nil {
			t.Fatalf("no usage: %s", x.UsageReason)
		}
		return x
	}
	alone := enrich(&Tracker{Wait: time.Second, ClaudeDir: dir}).Usage

	tr := &Tracker{Wait: time.Second, ClaudeDir: dir}
	x := enrich(tr, "a1")
	if u := x.Usage; u.InputTokens != 2*alone.InputTokens || u.OutputTokens != 2*alone.OutputTokens ||
		u.Messages != 2*alone.Messages || x.UsageReason != "" {
		t.Errorf("with its fork: %+v (%q); the session alone: %+v", u, x.UsageReason, alone)
	}
	paths := map[string]bool{}
	for _, st := range tr.Dirty() {
		paths[st.Path] = true
	}
	if !paths[main] || !paths[fork] || len(paths) != 2 {
		t.Errorf("positions to store: %v, want the session's and the fork's", paths)
	}
	if again := enrich(tr, "a1"); again.Usage.Messages != 0 {
		t.Errorf("the same windows counted twice: %+v", again.Usage)
	}

	y := enrich(&Tracker{Wait: time.Second, ClaudeDir: dir}, "a2")
	if y.Usage.InputTokens != alone.InputTokens || !strings.Contains(y.UsageReason, "a2: transcript missing") {
		t.Errorf("a missing fork transcript: %+v %q", y.Usage, y.UsageReason)
	}
}

// An execution dated 2099 waits for its transcript no longer than Wait by
// the clock it is given (issue 33 item 7): the wait ran until the
// execution's own end plus Wait, so one line dated 2099 wedged ingestion,
// again at every restart.
func TestEnrichWaitIsBoundedByTheClock(t *testing.T) {
	dir, proj := claudeDir(t)
	clk := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	start := clk
	now := func() time.Time { return clk }
	sleeps := 0
	sleep := func(d time.Duration) {
		sleeps++
		clk = clk.Add(d)
		if sleeps > 1000 {
			clk = clk.AddDate(100, 0, 0) // let a wedged loop end, and fail below
		}
	}
	tr := &Tracker{Wait: 2 * time.Second, ClaudeDir: dir}
	for _, path := range []string{filepath.Join(proj, "missing.jsonl"), filepath.Join(proj, "empty.jsonl")} {
		if filepath.Base(path) == "empty.jsonl" {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		x := &execution.Execution{SessionID: "s", TranscriptPath: path, EndedAt: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}
		start, sleeps = clk, 0
		tr.Enrich(x, now, sleep)
		if waited := clk.Sub(start); sleeps > 1000 || waited > tr.Wait {
			t.Errorf("%s: waited %v (%d sleeps) by the clock, want at most %v", filepath.Base(path), waited, sleeps, tr.Wait)
		}
		if x.Usage != nil && x.Usage.Messages > 0 {
			t.Errorf("%s: usage %+v", filepath.Base(path), x.Usage)
		}
	}
}
