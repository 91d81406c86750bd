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
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/transcript"
)

// Options configure a Collector.
type Options struct {
	// Home is $SEPA_HOME: the spool, fallback file and segments live here.
	Home string
	// ExtraFiles are more JSONL files to follow; sepad never rotates them.
	ExtraFiles []string
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
	// Score scores one closed execution.
	Score func(*execution.Execution) fitness.Result
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
	// Sleep waits for a lagging transcript (default time.Sleep); tests
	// step it with Now.
	Sleep func(time.Duration)
}

// CommitInfo describes one committed batch.
type CommitInfo struct {
	Lines       int
	Executions  []store.Scored
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
	return &Collector{db: db, opts: o, log: o.Logger, g: execution.NewGrouper(execution.Options{}),
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
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch %s: %w", c.opts.Home, err)
	}
	if err := w.Add(c.opts.Home); err != nil {
		w.Close()
		return fmt.Errorf("watch %s: %w", c.opts.Home, err)
	}
	for _, f := range c.opts.ExtraFiles {
		_ = w.Add(filepath.Dir(f)) // best effort: the poll tick covers the rest
	}
	ctx, c.cancel = context.WithCancel(ctx)
	c.done = make(chan struct{})
	go c.run(ctx, w)
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

func (c *Collector) run(ctx context.Context, w *fsnotify.Watcher) {
	defer close(c.done)
	defer w.Close()
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
		case <-w.Events:
		case err := <-w.Errors:
			c.log.Warn("file watch error", "err", err)
		case <-tick.C:
		}
	}
}

// restore loads checkpoints and open executions, and opens every file.
func (c *Collector) restore() error {
	states, err := c.db.OpenStates()
	if err != nil {
		return fmt.Errorf("restore open executions: %w", err)
	}
	if err := c.g.Restore(states); err != nil {
		return err
	}
	if err := c.restoreTranscripts(); err != nil {
		return err
	}
	offs, err := c.db.Offsets()
	if err != nil {
		return fmt.Errorf("restore offsets: %w", err)
	}
	cps := make([]checkpoint, 0, len(offs))
	for _, o := range offs {
		cps = append(cps, fromStore(o))
		c.committed[o.File] = true
	}
	c.keysDirty = len(cps) > 0 // keys of files gone or renamed are rewritten
	resumed := map[*source]bool{}
	seen := map[fileID]bool{}
	for _, p := range c.discover() {
		fi, err := os.Stat(p.path)
		if err != nil || !fi.Mode().IsRegular() {
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				c.log.Warn("cannot read file; will retry", "file", p.path, "err", err)
			}
			continue
		}
		id := statID(p.path, fi)
		if id != (fileID{}) && seen[id] {
			continue // a second name of a file already followed
		}
		seen[id] = true
		s := &source{path: p.path, kind: p.kind, named: true}
		cp := findCheckpoint(cps, id)
		ok, err := s.open(cp)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			if p.kind == kindExtra || errors.Is(err, os.ErrPermission) {
				c.log.Warn("cannot read file; will retry", "file", p.path, "err", err)
				continue
			}
			return fmt.Errorf("open %s: %w", p.path, err)
		}
		if ok {
			resumed[s] = true
		} else if cp != nil {
			c.log.Warn("file changed while the daemon was down; reading it from the start", "file", p.path)
		}
		c.sources = append(c.sources, s)
	}
	// A copy in the making (logrotate copytruncate, which creates the copy
	// empty, then fills it) is not followed yet: rescan waits for it as
	// for one that appears while the daemon runs.
	opened := slices.Clone(c.sources)
	c.sources = slices.DeleteFunc(c.sources, func(s *source) bool {
		if s.kind.live() || s.kind == kindExtra || resumed[s] || s.size() >= fingerprintLen || !headOfLive(s.path, opened) {
			return false
		}
		c.log.Info("a copy in the making? waiting for its content", "file", s.path)
		s.close()
		return true
	})
	// Copies (logrotate copytruncate): a file whose head is the head of a
	// live file is not read while that file is; one whose head is that of
	// a checkpointed file that has since been truncated is read from that
	// checkpoint's offset, not from its start.
	for _, s := range c.sources {
		if s.kind.live() || s.kind == kindExtra {
			continue
		}
		if o := c.origin(s); o != nil {
			c.link(s, o)
			continue
		}
		// A copy's own checkpoint may have been taken while logrotate was
		// still copying (capped at the size then): the original's
		// checkpoint, committed in the same transaction, says how much of
		// that content was read.
		var best *checkpoint
		for i := range cps {
			if s.copyOfCheckpoint(&cps[i]) && (best == nil || cps[i].Offset > best.Offset) {
				best = &cps[i]
			}
		}
		if best != nil && (!resumed[s] || min(best.Offset, s.size()) > s.off) {
			if err := c.startCopyAt(s, best.Offset, best.Lines); err != nil {
				return err
			}
			c.log.Info("a copy of a file read before the restart; reading it from where that file's reading stopped",
				"file", s.path, "of", best.Path, "offset", s.off)
		}
	}
	c.resort()
	for _, s := range c.sources {
		c.log.Info("following", "file", s.path, "offset", s.off)
	}
	return nil
}

type candidate struct {
	path string
	kind sourceKind
}

// compressed are the suffixes of compressed rotated files, which are never
// read (logrotate's compress, with any compressor).
var compressed = []string{".gz", ".bz2", ".xz", ".zst", ".lz4", ".lzma", ".Z", ".zip", ".tmp"}

// discover lists the files to follow, in reading order: rotated files and
// segments oldest first, then the spool, the fallback files and the extra
// files.
func (c *Collector) discover() []candidate {
	spool := hooks.SpoolPath(c.opts.Home)
	if c.fallbacks == nil {
		c.fallbacks = append([]string{}, hooks.RuntimeFallbackPaths(c.opts.Home)...)
	}
	out := rotatedNames(spool, true)
	for _, fb := range c.fallbacks {
		out = append(out, rotatedNames(fb, false)...)
	}
	out = append(out, candidate{spool, kindSpool}, candidate{hooks.FallbackPath(c.opts.Home), kindFallback})
	for _, fb := range c.fallbacks {
		out = append(out, candidate{fb, kindFallback})
	}
	for _, f := range c.opts.ExtraFiles {
		out = append(out, candidate{f, kindExtra})
	}
	return out
}

// rotatedNames lists base.* files, oldest first: the daemon's own segments
// (base.<20 digits>) and, with others, names given by another program
// (logrotate's base.1, base.2, ..., and base-YYYYMMDDHH.backup), never
// compressed ones.
func rotatedNames(base string, others bool) []candidate {
	names, _ := filepath.Glob(base + ".*")
	if others {
		// logrotate's create, when a writer created the file again
		// between logrotate's rename and its create ("destination
		// already exists"): the writer's file is renamed to
		// base-YYYYMMDDHH.backup, and its lines are in no other file.
		b, _ := filepath.Glob(base + "-*.backup")
		names = append(names, b...)
	}
	type seg struct {
		cand candidate
		mt   time.Time
		num  int
	}
	var ss []seg
	for _, p := range names {
		if slices.ContainsFunc(compressed, func(x string) bool { return strings.HasSuffix(p, x) }) {
			continue
		}
		kind := kindRotated
		if isOwnSegment(base, p) {
			kind = kindSegment
		} else if !others {
			continue
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		num, _ := strconv.Atoi(strings.TrimPrefix(p, base+"."))
		ss = append(ss, seg{candidate{p, kind}, fi.ModTime(), num})
	}
	sort.Slice(ss, func(i, j int) bool {
		if !ss[i].mt.Equal(ss[j].mt) {
			return ss[i].mt.Before(ss[j].mt)
		}
		if ss[i].num != ss[j].num {
			return ss[i].num > ss[j].num // logrotate: .3 is older than .1
		}
		return ss[i].cand.path < ss[j].cand.path
	})
	out := make([]candidate, len(ss))
	for i := range ss {
		out[i] = ss[i].cand
	}
	return out
}

// isOwnSegment reports whether path is a segment the daemon made by
// rotating base: base + "." + 20 digits.
func isOwnSegment(base, path string) bool {
	suf := strings.TrimPrefix(path, base+".")
	if len(suf) != 20 || suf == path {
		return false
	}
	for _, r := range suf {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// findCheckpoint returns the checkpoint of the file with identity id,
// wherever it was recorded (a rotated spool keeps its inode under its new
// name). The same file can have been recorded under two names (the spool
// and, after rotation, its new name): the furthest position is the newest.
func findCheckpoint(cps []checkpoint, id fileID) *checkpoint {
	if id == (fileID{}) {
		return nil
	}
	var best *checkpoint
	for i := range cps {
		if cps[i].ID == id && (best == nil || cps[i].Offset > best.Offset) {
			cp := cps[i]
			best = &cp
		}
	}
	return best
}

// origin returns the live file s is a copy of, if any.
func (c *Collector) origin(s *source) *source {
	for _, o := range c.sources {
		if o != s && o.f != nil && o.kind.live() && o.follows == nil && s.copyOf(o) {
			return o
		}
	}
	return nil
}

// link makes s wait on o, of which it is a copy: while o holds the same
// content, everything s holds is read from o.
func (c *Collector) link(s, o *source) {
	s.follows = o
	c.syncCopy(s)
	c.mu.Lock()
	c.stats.Copies++
	c.mu.Unlock()
	c.log.Info("a copy of a followed file (logrotate copytruncate?); it is read only past what the original gave",
		"file", s.path, "of", o.path)
}

// syncCopy keeps a linked copy's position at its original's (so its
// checkpoint says what was read of it).
func (c *Collector) syncCopy(s *source) {
	o := s.follows
	if size := s.size(); o.off > size {
		s.off, s.buf, s.skipping = size, nil, false
	} else {
		s.off, s.lines, s.buf, s.skipping = o.off, o.lines, nil, false
	}
}

// release ends a copy's wait: its original was truncated or went away, so
// the copy holds what the original no longer does. It starts where the
// original's reading stopped.
func (c *Collector) release(s *source) error {
	o := s.follows
	s.follows = nil
	return c.startCopyAt(s, o.off, o.lines)
}

// startCopyAt positions a copy at off (capped at its size): the bytes
// before it were read from the file it copies.
func (c *Collector) startCopyAt(s *source, off, lines int64) error {
	if size := s.size(); off > size {
		off, lines = size, -1
	}
	if err := s.seekTo(off); err != nil {
		return err
	}
	if lines < 0 {
		lines = countLines(s, off)
	}
	s.lines = lines
	c.keysDirty = true
	return nil
}

// countLines counts the newlines in the first n bytes of s's file.
func countLines(s *source, n int64) int64 {
	buf := make([]byte, 64<<10)
	var lines, at int64
	for at < n {
		m, err := s.f.ReadAt(buf[:min(int64(len(buf)), n-at)], at)
		for _, b := range buf[:m] {
			if b == '\n' {
				lines++
			}
		}
		at += int64(m)
		if err != nil || m == 0 {
			break
		}
	}
	return lines
}

// step reads what is available, handles rotation and truncation, closes
// idle executions, and commits when the batch is full, old enough, or
// final is set. While the store is full it only retries the held batch,
// when its backoff allows.
func (c *Collector) step(final bool) error {
	err := c.stepOnce(final)
	if errors.Is(err, errStalled) {
		return nil // held; retried at a later step
	}
	return err
}

func (c *Collector) stepOnce(final bool) error {
	now := c.opts.Now()
	if c.Health().Stalled {
		if now.Before(c.Health().NextRetry) && !final {
			return nil
		}
		if err := c.commit(now); err != nil {
			return err
		}
	}
	for {
		full, err := c.readAll(now)
		if err != nil {
			return err
		}
		if !full {
			break
		}
		if err := c.commit(now); err != nil {
			return err
		}
		if c.stopping.Load() {
			return nil // the rest is read after the restart
		}
	}
	if err := c.maintain(now); err != nil {
		return err
	}
	if xs := c.g.CloseIdle(now, c.opts.IdleTimeout); len(xs) > 0 {
		c.addExecutions(xs)
	}
	if c.batchLines > 0 || len(c.batch.Executions) > 0 || c.keysDirty {
		if final || c.keysDirty || c.batchLines >= c.opts.BatchLines || now.Sub(c.batchStart) >= c.opts.BatchInterval || len(c.batch.Executions) > 0 && c.batchLines == 0 {
			return c.commit(now)
		}
	}
	return nil
}

// readAll reads every source in order until the batch is full (true) or
// all are at EOF (false).
func (c *Collector) readAll(now time.Time) (bool, error) {
	for _, s := range slices.Clone(c.sources) {
		if s.follows != nil {
			continue
		}
		if gone, err := s.retracted(); err != nil {
			c.log.Warn("cannot check the partial line at the end of a file", "file", s.path, "err", err)
		} else if gone {
			c.log.Warn("a partial line was taken back by its writer (a failed write on a full disk?); reading on from the last complete line",
				"file", s.path, "offset", s.off)
		}
		if s.truncated() {
			if err := c.truncated(s); err != nil {
				return false, err
			}
		}
	}
	var lines []line
	for _, s := range c.sources {
		room := c.opts.BatchLines - c.batchLines - len(lines)
		if room <= 0 {
			break
		}
		if s.follows != nil {
			continue // a copy: its original is read instead
		}
		var err error
		lines, err = s.read(room, lines)
		if err != nil {
			// An unreadable file must not stop the others: say so once,
			// and retry at every step.
			if !s.warned {
				c.log.Error("cannot read file; will retry", "file", s.path, "err", err)
				s.warned = true
			}
			continue
		}
		s.warned = false
	}
	for _, l := range lines {
		c.ingest(l, now)
	}
	return c.batchLines >= c.opts.BatchLines, nil
}

// ingest parses one line and feeds it to the grouper; what cannot be parsed
// is quarantined with its file, offset and reason.
func (c *Collector) ingest(l line, now time.Time) {
	if c.batchLines == 0 {
		c.batchStart = now
		c.oldest = time.Time{}
	}
	c.batchLines++
	if l.tooLong {
		c.quarantine(l, fmt.Sprintf("line longer than %d bytes", maxLine), now)
		return
	}
	if len(strings.TrimSpace(string(l.data))) == 0 {
		return
	}
	ev, err := event.ParseLine(l.data)
	if err != nil {
		c.quarantine(l, strings.TrimPrefix(err.Error(), event.ErrMalformed.Error()+": "), now)
		return
	}
	if c.batch.EventCounts == nil {
		c.batch.EventCounts = map[string]int64{}
	}
	c.batch.EventCounts[ev.HookEvent]++
	if t := ev.Time; !t.IsZero() {
		if c.oldest.IsZero() || t.Before(c.oldest) {
			c.oldest = t
		}
		if c.opts.OnCommit != nil {
			c.times = append(c.times, t)
		}
	}
	// The idle timeout runs from when the line was read, not from the
	// event's own time: a backlog of old events (a restart, a spool
	// copied in) would otherwise be closed between two batches, in the
	// middle of its turns, and give other executions than sepad score.
	c.addExecutions(c.g.AddAt(&ev, now))
}

func (c *Collector) quarantine(l line, reason string, now time.Time) {
	raw := l.data
	if len(raw) > c.opts.QuarantineRaw {
		raw = raw[:c.opts.QuarantineRaw]
	}
	c.batch.Quarantine = append(c.batch.Quarantine, store.QuarantineEntry{
		File: l.src.path, Offset: l.off, Raw: append([]byte(nil), raw...), Reason: reason, Time: now,
	})
	c.log.Warn("quarantined line", "file", l.src.path, "offset", l.off, "reason", reason)
}

func (c *Collector) addExecutions(xs []execution.Execution) {
	for i := range xs {
		x := xs[i]
		c.enrich(&x)
		c.batch.Executions = append(c.batch.Executions, store.Scored{Exec: x, Result: c.opts.Score(&x)})
	}
}

// commit writes the batch, the offsets of every followed file and the
// changed open executions in one transaction. When the store is full it
// keeps all of it for a later attempt and returns errStalled.
func (c *Collector) commit(now time.Time) error {
	// The grouper's changes move into the batch, so a failed attempt
	// keeps them for the next one.
	put, del := c.g.Dirty()
	mergeOpen(&c.batch, put, del)
	b := c.batch
	// Record every named file's current position, not only those read in
	// this batch: cheap, and it keeps checkpoints of rotated files current.
	b.Offsets = nil
	keys := map[string]bool{}
	for _, s := range c.sources {
		if s.f == nil || !s.named || keys[s.path] {
			continue
		}
		if s.follows != nil {
			c.syncCopy(s)
		}
		keys[s.path] = true
		b.Offsets = append(b.Offsets, toStore(s.checkpoint()))
	}
	b.OffsetDel = nil
	for p := range c.committed {
		if !keys[p] {
			b.OffsetDel = append(b.OffsetDel, p)
		}
	}
	sort.Strings(b.OffsetDel)
	start := time.Now()
	if err := c.db.Commit(&b); err != nil {
		if errors.Is(err, store.ErrNoSpace) {
			c.stall(now, err)
			return errStalled
		}
		return fmt.Errorf("commit %d lines: %w", c.batchLines, err)
	}
	lat := time.Since(start)
	c.transcriptsCommitted(b.Transcripts)
	for _, col := range b.Collisions {
		c.log.Error("execution not stored: its ID is taken; quarantined", "id", col.ID, "held", col.Held, "refused", col.New)
	}
	// Only what this commit stored goes on: a replayed or refused
	// execution has no sequence number.
	stored := b.Executions[:0:0]
	for _, x := range b.Executions {
		if x.Seq != 0 {
			stored = append(stored, x)
		}
	}
	b.Executions = stored
	c.committed, c.keysDirty = keys, false
	c.mu.Lock()
	c.stats.Lines += int64(c.batchLines)
	c.stats.Commits++
	c.stats.Executions += int64(len(b.Executions))
	c.stats.Quarantined += int64(len(b.Quarantine))
	stalled := c.health.Stalled
	if stalled {
		c.log.Info("the store takes commits again; catching up", "stalled_for", now.Sub(c.health.Since).Round(time.Millisecond),
			"attempts", c.health.Attempts, "lines", c.batchLines)
		c.health.Stalled, c.health.Since, c.health.Attempts, c.health.NextRetry = false, time.Time{}, 0, time.Time{}
	}
	c.health.PendingLines = 0
	c.mu.Unlock()
	if c.opts.OnCommit != nil {
		c.opts.OnCommit(CommitInfo{Lines: c.batchLines, Executions: b.Executions, Quarantined: len(b.Quarantine),
			EventCounts: b.EventCounts, Latency: lat, Oldest: c.oldest, Times: c.times, Committed: time.Now()})
	}
	c.times = nil
	c.batch = store.Batch{}
	c.batchLines = 0
	return nil
}

// stall records a commit refused for lack of space and schedules the
// next attempt: RetryMin, doubling up to RetryMax.
func (c *Collector) stall(now time.Time, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := &c.health
	if !h.Stalled {
		h.Stalled, h.Since, h.Attempts = true, now, 0
		h.Stalls++
		c.log.Error("cannot commit: the file system holding the database is full; holding the lines read and retrying until there is room",
			"err", err, "lines", c.batchLines)
	}
	h.Attempts++
	h.FailedCommits++
	h.LastError = err.Error()
	h.PendingLines = c.batchLines
	wait := c.opts.RetryMin
	for i := int64(1); i < h.Attempts && wait < c.opts.RetryMax; i++ {
		wait *= 2
	}
	h.NextRetry = now.Add(min(wait, c.opts.RetryMax))
}

// mergeOpen adds the grouper's changed threads to the batch: a later put
// replaces an earlier one or a deletion, a later deletion an earlier put.
func mergeOpen(b *store.Batch, put map[string][]byte, del []string) {
	for k, v := range put {
		if b.OpenPut == nil {
			b.OpenPut = map[string][]byte{}
		}
		b.OpenPut[k] = v
		b.OpenDel = slices.DeleteFunc(b.OpenDel, func(d string) bool { return d == k })
	}
	for _, k := range del {
		delete(b.OpenPut, k)
		if !slices.Contains(b.OpenDel, k) {
			b.OpenDel = append(b.OpenDel, k)
		}
	}
}

// maintain handles what happened to the files: renames (rotation by
// another program), new files (the spool created by the first hook call,
// copies made by logrotate), truncation, the daemon's own rotation of the
// spool and of drained fallback files, and deletion of drained segments.
// It runs only when every source is at EOF (readAll returned false).
func (c *Collector) maintain(now time.Time) error {
	if err := c.rescan(now); err != nil {
		return err
	}
	var drained []*source
	for _, s := range slices.Clone(c.sources) {
		s.eofPolls++ // maintain runs only once every source is at EOF
		if s.follows != nil {
			continue
		}
		switch {
		case s.kind == kindSegment && len(s.buf) > 0 && s.eofPolls >= 3,
			s.kind == kindRotated && len(s.buf) > 0 && s.eofPolls >= 3,
			!s.named && s.kind != kindSegment && len(s.buf) > 0 && s.eofPolls >= 3:
			// A file nobody appends to any more: a line without its
			// newline at its end will never be completed.
			c.quarantine(line{src: s, off: s.off, data: s.buf}, "partial last line at the end of a rotated file", now)
			s.off += int64(len(s.buf))
			s.buf = nil
			if c.batchLines == 0 {
				c.batchStart = now
			}
			c.batchLines++
		case s.kind == kindSegment && len(s.buf) == 0 && s.off >= s.size() && s.eofPolls >= 3:
			// Three quiet polls: a hook that gave up waiting for a
			// fallback file's lock may still write to it once.
			drained = append(drained, s)
		case !s.named && len(s.buf) == 0 && s.eofPolls >= 3 && deleted(s):
			// Deleted and drained: forget it. (A file renamed out of
			// sight keeps its descriptor: it may come back under a
			// watched name, and must not be read again then.)
			c.log.Info("rotated file gone; closed", "file", s.path, "lines", s.lines)
			if err := c.drop(s); err != nil {
				return err
			}
		case s.kind == kindSpool && s.off >= c.opts.RotateBytes && len(s.buf) == 0:
			if err := c.rotate(s, now); err != nil {
				return err
			}
		case s.kind == kindFallback && s.named && len(s.buf) == 0 && s.off > 0 && s.off >= s.size() && s.eofPolls >= 3:
			c.rotateFallback(s, now)
		}
	}
	if len(drained) == 0 {
		return nil
	}
	// Drained segments: commit their final offsets first, then delete
	// them, then forget their checkpoints. A crash in between re-reads
	// nothing: the checkpoint still says "at the end".
	if err := c.commit(now); err != nil {
		return err
	}
	for _, s := range drained {
		if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete drained segment: %w", err)
		}
		c.log.Info("segment drained and deleted", "file", s.path, "lines", s.lines)
		if err := c.drop(s); err != nil {
			return err
		}
	}
	return nil
}

// deleted reports whether s's file has no name left (where the platform
// cannot tell, a file no watched name reaches counts as deleted).
func deleted(s *source) bool {
	if s.f == nil {
		return true
	}
	gone, ok := unlinked(s.f)
	return gone || !ok
}

// drop closes a source and stops following it; copies waiting on it
// start where its reading stopped.
func (c *Collector) drop(s *source) error {
	for _, o := range c.sources {
		if o.follows == s {
			if err := c.release(o); err != nil {
				return err
			}
		}
	}
	s.close()
	c.sources = slices.DeleteFunc(c.sources, func(x *source) bool { return x == s })
	c.keysDirty = true
	return nil
}

// rescan looks at the names again: a followed file under a new name
// (rotated by another program) is followed under it, a followed file no
// name reaches any more is drained and closed, and a new file is followed
// from its start, or, when it is a copy of a followed file, only past what
// was read of that file.
func (c *Collector) rescan(now time.Time) error {
	// Names and renames are not read atomically: logrotate may rename
	// between the listing and the stats. A followed file that still has a
	// name somewhere but was not seen is looked for again (three passes),
	// so it is never taken for a new file under its next name.
	var fresh []candidate
	for pass := 0; pass < 3; pass++ {
		fresh = c.scanNames()
		missing := false
		for _, s := range c.sources {
			if !s.named && s.f != nil {
				gone, ok := unlinked(s.f)
				missing = missing || (ok && !gone)
			}
		}
		if !missing {
			break
		}
	}
	for _, s := range c.sources {
		if !s.named && s.kind.live() {
			c.log.Warn("file rotated or deleted by another program; draining it", "file", s.path)
			s.kind = kindRotated
			c.keysDirty = true
		}
	}
	for _, cand := range fresh {
		s := &source{path: cand.path, kind: cand.kind, named: true}
		if _, err := s.open(nil); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				c.log.Warn("cannot read file; will retry", "file", cand.path, "err", err)
			}
			continue
		}
		c.sources = append(c.sources, s)
		c.keysDirty = true
		if !s.kind.live() && s.kind != kindExtra {
			if o := c.origin(s); o != nil {
				c.link(s, o)
				continue
			}
		}
		c.log.Info("following", "file", cand.path, "offset", 0)
	}
	c.resort()
	return nil
}

// scanNames gives every followed file the name that reaches it now (or
// none) and returns the names of files not followed yet.
func (c *Collector) scanNames() []candidate {
	for _, s := range c.sources {
		s.named = false
	}
	seen := map[fileID]bool{}
	var fresh []candidate
	for _, cand := range c.discover() {
		fi, err := os.Stat(cand.path)
		if err != nil || !fi.Mode().IsRegular() {
			delete(c.young, cand.path)
			continue
		}
		id := statID(cand.path, fi)
		if seen[id] {
			continue
		}
		seen[id] = true
		if s := c.byID(id); s != nil {
			c.rename(s, cand)
			continue
		}
		if !cand.kind.live() && cand.kind != kindExtra && fi.Size() < fingerprintLen {
			// Possibly a copy in the making: logrotate creates the copy
			// empty, then fills it, and may be descheduled in between
			// for any time. While all it holds is the head of a live
			// file (nothing, at first), that file gives those bytes: wait,
			// however many polls it takes, until it has a full head (then
			// it is matched as a copy) or the live file is truncated
			// (truncated matches it). Anything else: wait until it has
			// not grown for three polls, so a truncation of its original
			// is seen first.
			if headOfLive(cand.path, c.sources) {
				c.young[cand.path] = [2]int64{fi.Size(), 0}
				continue
			}
			y := c.young[cand.path]
			if y[0] != fi.Size() {
				c.young[cand.path] = [2]int64{fi.Size(), 0}
				continue
			}
			if y[1]++; y[1] < 3 {
				c.young[cand.path] = y
				continue
			}
		}
		delete(c.young, cand.path)
		fresh = append(fresh, cand)
	}
	return fresh
}

// rename records that the followed file s is now named by cand.
func (c *Collector) rename(s *source, cand candidate) {
	s.named = true
	if s.path == cand.path {
		return
	}
	if s.kind.live() && !cand.kind.live() {
		c.log.Warn("file rotated by another program; draining it under its new name", "file", s.path, "now", cand.path)
	}
	s.path = cand.path
	switch {
	case cand.kind.live(), cand.kind == kindExtra:
		s.kind = cand.kind
	case s.kind == kindSegment || cand.kind == kindSegment:
		s.kind = kindSegment
	default:
		s.kind = kindRotated
	}
	c.keysDirty = true
}

// truncated restarts a source whose file was truncated (or rewritten):
// lines appended after the truncation are read from the start. Copies of
// what it held before (logrotate copytruncate copies, then truncates)
// start where its reading stopped.
func (c *Collector) truncated(s *source) error {
	c.log.Warn("file truncated or rewritten; reading it from the start", "file", s.path, "offset", s.off)
	c.mu.Lock()
	c.stats.Truncations++
	c.mu.Unlock()
	for _, o := range c.sources {
		if o.follows == s {
			if err := c.release(o); err != nil {
				return err
			}
		}
	}
	// Copies not found yet: logrotate copied the file before truncating.
	for _, cand := range c.discover() {
		if cand.kind.live() || cand.kind == kindExtra {
			continue
		}
		fi, err := os.Stat(cand.path)
		if err != nil || !fi.Mode().IsRegular() || c.byID(statID(cand.path, fi)) != nil {
			continue
		}
		n := &source{path: cand.path, kind: kindRotated, named: true}
		if _, err := n.open(nil); err != nil {
			continue
		}
		if !n.copyOf(s) {
			n.close() // followed from its start by the next rescan
			continue
		}
		if err := c.startCopyAt(n, s.off, s.lines); err != nil {
			n.close()
			return err
		}
		delete(c.young, cand.path)
		c.sources = append(c.sources, n)
		c.mu.Lock()
		c.stats.Copies++
		c.mu.Unlock()
		c.log.Info("a copy of a truncated file (logrotate copytruncate?); reading it from where the original's reading stopped",
			"file", n.path, "of", s.path, "offset", n.off)
	}
	s.close()
	if _, err := s.open(nil); err != nil {
		c.log.Warn("cannot reopen truncated file", "file", s.path, "err", err)
	}
	c.keysDirty = true
	c.resort()
	return nil
}

func (c *Collector) byID(id fileID) *source {
	if id == (fileID{}) {
		return nil
	}
	for _, s := range c.sources {
		if s.f != nil && s.id == id {
			return s
		}
	}
	return nil
}

func (c *Collector) following(path string) bool {
	for _, s := range c.sources {
		if s.path == path && s.named {
			return true
		}
	}
	return false
}

// rank orders the sources for reading: older content first (segments,
// rotated files and copies), then the spool, the fallback files and the
// extra files.
func rank(k sourceKind) int {
	switch k {
	case kindSegment, kindRotated:
		return 0
	case kindSpool:
		return 1
	case kindFallback:
		return 2
	}
	return 3
}

// resort keeps the sources in reading order (stable within a rank).
func (c *Collector) resort() {
	sort.SliceStable(c.sources, func(i, j int) bool { return rank(c.sources[i].kind) < rank(c.sources[j].kind) })
}

// rotate renames a full spool to a numbered segment under the hook's lock,
// so no hook is writing while it moves. The open file keeps being read
// under its new name until drained, then deleted.
func (c *Collector) rotate(s *source, now time.Time) error {
	unlock, err := hooks.LockSpool(c.opts.Home, 2*time.Second)
	if err != nil {
		c.log.Warn("cannot take the spool lock to rotate; will retry", "err", err)
		return nil
	}
	seg := fmt.Sprintf("%s.%020d", s.path, now.UnixNano())
	err = os.Rename(s.path, seg)
	if uerr := unlock(); err == nil {
		err = uerr
	}
	if err != nil {
		return fmt.Errorf("rotate %s: %w", s.path, err)
	}
	c.log.Info("rotated spool", "file", s.path, "segment", seg, "bytes", s.off)
	c.mu.Lock()
	c.stats.Rotations++
	c.mu.Unlock()
	s.path, s.kind = seg, kindSegment
	c.keysDirty = true
	// Lines appended between our last read and the rename are in the
	// segment: they are read before it is deleted.
	return nil
}

// rotateFallback renames a drained fallback file to a segment, under the
// lock hooks take on it while they append, so its space is given back
// (a runtime fallback file lives in memory) once the segment is drained
// and deleted. A hook that gave up waiting for the lock and writes
// anyway, into the renamed file, is read before the segment is deleted.
func (c *Collector) rotateFallback(s *source, now time.Time) {
	unlock, err := lockFile(s.f, 50*time.Millisecond)
	if err != nil {
		return // a hook is writing to it: next time
	}
	defer unlock()
	if s.off < s.size() {
		return // written meanwhile: read it first
	}
	seg := fmt.Sprintf("%s.%020d", s.path, now.UnixNano())
	if err := os.Rename(s.path, seg); err != nil {
		c.log.Warn("cannot rotate fallback file; will retry", "file", s.path, "err", err)
		return
	}
	c.log.Info("fallback file drained; rotated to be deleted", "file", s.path, "segment", seg, "lines", s.lines)
	s.path, s.kind, s.eofPolls = seg, kindSegment, 0
	c.keysDirty = true
}

func toStore(cp checkpoint) store.Offset {
	return store.Offset{File: cp.Path, Offset: cp.Offset, Dev: cp.ID.Dev, Ino: cp.ID.Ino,
		Fingerprint: fmt.Sprintf("%d:%s", cp.FPLen, cp.FP), Size: cp.Size, Lines: cp.Lines}
}

func fromStore(o store.Offset) checkpoint {
	cp := checkpoint{Path: o.File, ID: fileID{o.Dev, o.Ino}, Offset: o.Offset, Size: o.Size, Lines: o.Lines}
	if i := strings.IndexByte(o.Fingerprint, ':'); i > 0 {
		fmt.Sscanf(o.Fingerprint[:i], "%d", &cp.FPLen)
		cp.FP = o.Fingerprint[i+1:]
	}
	return cp
}
