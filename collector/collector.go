// Package collector is the daemon's ingestion: it follows the hook's spool
// (and the fallback files, rotated segments and extra files), groups events
// into executions, scores them, and commits them to the store together with
// the read offsets, in one bbolt transaction per batch of lines. A crash at
// any point loses and duplicates nothing: a restart resumes from the last
// commit. See docs/architecture.md for the guarantees and their limits.
package collector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/internal/fswatch"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/transcript"
)

// Options configure a Collector.
type Options struct {
	// Home is $SEPA_HOME: the spool, fallback file and segments live here.
	Home string
	// ExtraFiles are more JSONL files to follow; sepad never rotates them.
	ExtraFiles []string
	// Watch is the daemon's shared file watcher (package fswatch); nil:
	// the collector opens one of its own.
	Watch *fswatch.Watcher
	// BatchLines bounds the lines committed in one transaction.
	BatchLines int
	// BatchInterval bounds how long a line waits before it is committed.
	BatchInterval time.Duration
	// IdleTimeout closes executions with no event for this long.
	IdleTimeout time.Duration
	// RotateBytes is the spool size past which the daemon rotates it.
	RotateBytes int64
	// QuarantineRaw bounds the raw bytes kept per quarantined line.
	QuarantineRaw int
	// RetryMin and RetryMax bound the wait before the next attempt to
	// commit a batch the store refused for lack of space
	// (store.ErrNoSpace): it doubles from RetryMin up to RetryMax
	// (defaults 250ms and 10s). The wait is measured with Now, so tests
	// step it.
	RetryMin, RetryMax time.Duration
	// Scorer scores each closed execution and checks its claims before
	// the commit (package scoring).
	Scorer *scoring.Scorer
	// Now is the clock (default time.Now). Tests step it.
	Now func() time.Time
	// Logger receives operator-level events (rotations, truncations,
	// quarantines). Default: discard.
	Logger *slog.Logger
	// OnCommit, if set, is called after every commit with what it held
	// (metrics, the mutation engine).
	OnCommit func(CommitInfo)
	// Transcripts, if set, reads each closed execution's part of its
	// session transcript (tokens, cost, calls refused before any hook)
	// before it is scored; nil reads none.
	Transcripts *transcript.Tracker
	// OnStop, if set, is told of the execution a main thread's Stop ends
	// (the turn's answer, held for the person's verdict) as the Stop is
	// read, with the Stop's time: sepad's own check after the stop
	// (package afterstop) starts there. It must not block.
	OnStop func(x *execution.Execution, at time.Time)
	// Checked, if set, gives a closed execution sepad's own check after
	// its Stop (nil: none), before it is scored: the check is stored with
	// the execution. It may wait for a check still running, within the
	// check's bound.
	Checked func(x *execution.Execution) *execution.Check
	// Sleep waits for a lagging transcript (default time.Sleep); tests
	// step it with Now.
	Sleep func(time.Duration)
}

// CommitInfo describes one committed batch.
type CommitInfo struct {
	Lines       int
	Executions  []record.Scored
	Quarantined int
	EventCounts map[string]int64
	Latency     time.Duration
	// Oldest is the receive time of the oldest line in the batch (from
	// sepa.ts when present), for append-to-commit latency.
	Oldest time.Time
	// Times are the hook receive times (sepa.ts) of the batch's lines that
	// carry one, for latency histograms.
	Times []time.Time
	// Committed is when the transaction returned.
	Committed time.Time
}

// Stats are the collector's running counters.
type Stats struct {
	Lines       int64
	Commits     int64
	Executions  int64
	Quarantined int64
	Rotations   int64
	Truncations int64
	// Copies counts files found to be copies of content already being
	// read (logrotate copytruncate), read only past what was read.
	Copies int64
}

// Health says whether commits succeed (sepad status, sepad doctor,
// /metrics).
type Health struct {
	// Stalled is set while the store refuses commits for lack of space:
	// the collector holds the batch it read, reads nothing more, and
	// retries the commit with backoff until it succeeds.
	Stalled bool `json:"stalled"`
	// Since is when the current stall began.
	Since time.Time `json:"since,omitzero"`
	// LastError is the last failed commit's error.
	LastError string `json:"last_error,omitempty"`
	// Attempts counts the failed attempts of the current stall.
	Attempts int64 `json:"attempts,omitempty"`
	// NextRetry is when the next attempt is due.
	NextRetry time.Time `json:"next_retry,omitzero"`
	// PendingLines are the lines read and held for the next commit.
	PendingLines int `json:"pending_lines"`
	// Stalls and FailedCommits count since the daemon started.
	Stalls        int64 `json:"stalls"`
	FailedCommits int64 `json:"failed_commits"`
}

// errStalled is returned inside the collector by commit when the store is
// full: the caller stops its step; the batch is kept for the retry.
var errStalled = errors.New("commit stalled: no space")

// errNotRegular: a followed name leads to a FIFO, a device or a
// directory, never read.
var errNotRegular = errors.New("not a regular file")

// errLockBusy: a fallback file's lock was held by a hook.
var errLockBusy = errors.New("lock busy")

// Collector follows the spool and commits what it reads.
type Collector struct {
	db   *store.DB
	opts Options
	log  *slog.Logger

	g       *execution.Grouper
	sources []*source
	// committed are the checkpoint keys (paths) the store holds; a commit
	// deletes those no followed file has any more.
	committed map[string]bool
	// keysDirty is set when a followed file was renamed, appeared or
	// went away: the next step commits even without new lines.
	keysDirty bool
	// young are new rotated files too short to tell whether they are a
	// copy of a followed file (logrotate may still be copying): path ->
	// size seen and polls since it last changed.
	young map[string][2]int64
	// fallbacks are the hook's runtime fallback files of Home.
	fallbacks []string

	// novelty measures each execution's value before the commit.
	novelty *scoring.Novelty

	batch      store.Batch
	batchLines int
	batchStart time.Time
	oldest     time.Time
	times      []time.Time

	mu     sync.Mutex
	stats  Stats
	health Health

	cancel context.CancelFunc
	done   chan struct{}
	err    error
	// stopping makes a long catch-up return after its current batch, so
	// SIGTERM is answered promptly even with a large backlog.
	stopping atomic.Bool
	// imports are the imports to run on the collector's goroutine
	// (import.go).
	imports chan importJob
}

// New returns a Collector that commits into db. Call Open to start it.
func New(db *store.DB, o Options) *Collector {
	if o.BatchLines <= 0 {
		o.BatchLines = 5000
	}
	if o.BatchInterval <= 0 {
		o.BatchInterval = 50 * time.Millisecond
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 30 * time.Minute
	}
	if o.RotateBytes <= 0 {
		o.RotateBytes = 64 << 20
	}
	if o.QuarantineRaw <= 0 {
		o.QuarantineRaw = 4096
	}
	if o.RetryMin <= 0 {
		o.RetryMin = 250 * time.Millisecond
	}
	if o.RetryMax < o.RetryMin {
		o.RetryMax = max(10*time.Second, o.RetryMin)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = time.Sleep
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(discard{}, nil))
	}
	return &Collector{db: db, opts: o, log: o.Logger, g: execution.NewGrouper(execution.Options{}), novelty: scoring.NewNovelty(db),
		committed: map[string]bool{}, young: map[string][2]int64{}, imports: make(chan importJob)}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Open restores the open executions and read positions from the store,
// then follows the files in a goroutine it owns until Close.
func (c *Collector) Open(ctx context.Context) error {
	if err := c.restore(); err != nil {
		return err
	}
	fw, own := c.opts.Watch, false
	if fw == nil {
		var err error
		if fw, err = fswatch.Open(ctx); err != nil {
			return fmt.Errorf("watch %s: %w", c.opts.Home, err)
		}
		own = true
	}
	w := fw.Subscribe()
	closeWatch := func() {
		w.Close()
		if own {
			fw.Close()
		}
	}
	if err := w.Add(c.opts.Home); err != nil {
		closeWatch()
		return fmt.Errorf("watch %s: %w", c.opts.Home, err)
	}
	for _, f := range c.opts.ExtraFiles {
		_ = w.Add(filepath.Dir(f)) // best effort: the poll tick covers the rest
	}
	ctx, c.cancel = context.WithCancel(ctx)
	c.done = make(chan struct{})
	go c.run(ctx, w, closeWatch)
	return nil
}

// Close stops following, commits what was read, and returns the first error
// the goroutine met. When the store is full at that moment, the lines read
// since the last commit are not committed; they are read again at the next
// start (their offsets were not committed either), so nothing is lost.
func (c *Collector) Close() error {
	if c.cancel == nil {
		return nil
	}
	c.stopping.Store(true)
	c.cancel()
	<-c.done
	for _, s := range c.sources {
		s.close()
	}
	return c.err
}

// Done is closed when the collector's goroutine has stopped (after Close,
// or after a fatal error: see Err).
func (c *Collector) Done() <-chan struct{} { return c.done }

// Err returns the error that stopped the collector, if any.
func (c *Collector) Err() error { return c.err }

// Stats returns a copy of the running counters.
func (c *Collector) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Health returns whether commits succeed, and since when they do not.
func (c *Collector) Health() Health {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.health
}

func (c *Collector) run(ctx context.Context, w *fswatch.Sub, closeWatch func()) {
	defer close(c.done)
	defer closeWatch()
	tick := time.NewTicker(c.opts.BatchInterval)
	defer tick.Stop()
	for {
		if err := c.step(false); err != nil {
			c.err = err
			return
		}
		select {
		case <-ctx.Done():
			if err := c.step(true); err != nil {
				c.err = err
			}
			if h := c.Health(); h.Stalled {
				c.log.Warn("stopping while the store is full: the lines read since the last commit are read again at the next start",
					"lines", h.PendingLines)
			}
			return
		case j := <-c.imports:
			rep, err := c.runImport(j.recs)
			j.reply <- importDone{rep, err}
		case <-w.Events():
		case err := <-w.Errors():
			if !errors.Is(err, fsnotify.ErrEventOverflow) { // the next step reads everything anyway
				c.log.Warn("file watch error", "err", err)
			}
		case <-tick.C:
		}
	}
}
