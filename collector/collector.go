// Package collector is the daemon's ingestion: it follows the hook's spool
// (and the fallback file, rotated segments and extra files), groups events
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
	"sort"
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
}

// Collector follows the spool and commits what it reads.
type Collector struct {
	db   *store.DB
	opts Options
	log  *slog.Logger

	g       *execution.Grouper
	sources []*source
	// stale are checkpoints to delete at the next commit (segments deleted,
	// files that no longer exist).
	stale []string

	batch      store.Batch
	batchLines int
	batchStart time.Time
	oldest     time.Time
	times      []time.Time

	mu    sync.Mutex
	stats Stats

	cancel context.CancelFunc
	done   chan struct{}
	err    error
	// stopping makes a long catch-up return after its current batch, so
	// SIGTERM is answered promptly even with a large backlog.
	stopping atomic.Bool
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
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(discard{}, nil))
	}
	return &Collector{db: db, opts: o, log: o.Logger, g: execution.NewGrouper(execution.Options{})}
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
// the goroutine met.
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
			return
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
	offs, err := c.db.Offsets()
	if err != nil {
		return fmt.Errorf("restore offsets: %w", err)
	}
	cps := make([]checkpoint, 0, len(offs))
	for _, o := range offs {
		cps = append(cps, fromStore(o))
	}
	used := map[string]bool{}
	for _, p := range c.discover() {
		s := &source{path: p.path, kind: p.kind}
		cp := findCheckpoint(cps, p.path)
		resumed, err := s.open(cp)
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
		if resumed {
			used[cp.Path] = true
		} else if cp != nil {
			c.log.Warn("file changed while the daemon was down; reading it from the start", "file", p.path)
		}
		c.sources = append(c.sources, s)
		c.log.Info("following", "file", p.path, "offset", s.off)
	}
	for _, cp := range cps {
		if !used[cp.Path] {
			c.stale = append(c.stale, cp.Path)
		}
	}
	return nil
}

type candidate struct {
	path string
	kind sourceKind
}

// discover lists the files to follow, in reading order: rotated segments
// oldest first, then the spool, the fallback file and the extra files.
func (c *Collector) discover() []candidate {
	spool := hooks.SpoolPath(c.opts.Home)
	segs, _ := filepath.Glob(spool + ".*")
	type seg struct {
		path string
		mt   time.Time
	}
	var ss []seg
	for _, p := range segs {
		if strings.HasSuffix(p, ".tmp") || strings.HasSuffix(p, ".gz") {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			ss = append(ss, seg{p, fi.ModTime()})
		}
	}
	sort.Slice(ss, func(i, j int) bool {
		if !ss[i].mt.Equal(ss[j].mt) {
			return ss[i].mt.Before(ss[j].mt)
		}
		return ss[i].path < ss[j].path
	})
	var out []candidate
	for _, s := range ss {
		kind := kindRotated
		if isOwnSegment(spool, s.path) {
			kind = kindSegment
		}
		out = append(out, candidate{s.path, kind})
	}
	out = append(out, candidate{spool, kindSpool}, candidate{hooks.FallbackPath(c.opts.Home), kindFallback})
	for _, f := range c.opts.ExtraFiles {
		out = append(out, candidate{f, kindExtra})
	}
	return out
}

// isOwnSegment reports whether path is a segment the daemon made by
// rotating spool: spool + "." + 20 digits.
func isOwnSegment(spool, path string) bool {
	suf := strings.TrimPrefix(path, spool+".")
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

// findCheckpoint returns the checkpoint of the file now at path: the one
// whose identity (device, inode) matches, wherever it was recorded (a
// rotated spool keeps its inode under its new name).
func findCheckpoint(cps []checkpoint, path string) *checkpoint {
	fi, err := os.Stat(path)
	if err != nil {
		return nil
	}
	id := statID(fi)
	// The same file can have been recorded under two names (the spool and,
	// after rotation, its segment): the furthest position is the newest.
	var best *checkpoint
	for i := range cps {
		if cps[i].ID == id && (best == nil || cps[i].Offset > best.Offset) {
			cp := cps[i]
			best = &cp
		}
	}
	return best
}

// step reads what is available, handles rotation and truncation, closes
// idle executions, and commits when the batch is full, old enough, or
// final is set.
func (c *Collector) step(final bool) error {
	now := c.opts.Now()
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
	if c.batchLines > 0 || len(c.batch.Executions) > 0 || len(c.stale) > 0 {
		if final || c.batchLines >= c.opts.BatchLines || now.Sub(c.batchStart) >= c.opts.BatchInterval || len(c.batch.Executions) > 0 && c.batchLines == 0 {
			return c.commit(now)
		}
	}
	return nil
}

// readAll reads every source in order until the batch is full (true) or
// all are at EOF (false).
func (c *Collector) readAll(now time.Time) (bool, error) {
	var lines []line
	for _, s := range c.sources {
		room := c.opts.BatchLines - c.batchLines - len(lines)
		if room <= 0 {
			break
		}
		if s.truncated() {
			c.truncated(s)
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
	c.touched(l.src)
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
	recv := ev.Time
	if recv.IsZero() {
		recv = now
	} else {
		if c.oldest.IsZero() || recv.Before(c.oldest) {
			c.oldest = recv
		}
		if c.opts.OnCommit != nil {
			c.times = append(c.times, recv)
		}
	}
	c.addExecutions(c.g.AddAt(&ev, recv))
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
		c.batch.Executions = append(c.batch.Executions, store.Scored{Exec: x, Result: c.opts.Score(&x)})
	}
}

// touched marks a source's offset for the next commit.
func (c *Collector) touched(s *source) {
	for _, o := range c.batch.Offsets {
		if o.File == s.path {
			return
		}
	}
	c.batch.Offsets = append(c.batch.Offsets, store.Offset{File: s.path})
}

// commit writes the batch, the offsets of every source it read and the
// changed open executions in one transaction.
func (c *Collector) commit(now time.Time) error {
	b := c.batch
	// Record every source's current position, not only those read in this
	// batch: cheap, and it keeps checkpoints of rotated files current.
	b.Offsets = b.Offsets[:0]
	for _, s := range c.sources {
		if s.f == nil {
			continue
		}
		b.Offsets = append(b.Offsets, toStore(s.checkpoint()))
	}
	b.OpenPut, b.OpenDel = c.g.Dirty()
	for _, p := range c.stale {
		if !c.following(p) { // a live source's checkpoint is rewritten, not deleted
			b.OffsetDel = append(b.OffsetDel, p)
		}
	}
	start := time.Now()
	if err := c.db.Commit(&b); err != nil {
		return fmt.Errorf("commit %d lines: %w", c.batchLines, err)
	}
	lat := time.Since(start)
	c.mu.Lock()
	c.stats.Lines += int64(c.batchLines)
	c.stats.Commits++
	c.stats.Executions += int64(len(b.Executions))
	c.stats.Quarantined += int64(len(b.Quarantine))
	c.mu.Unlock()
	if c.opts.OnCommit != nil {
		c.opts.OnCommit(CommitInfo{Lines: c.batchLines, Executions: b.Executions, Quarantined: len(b.Quarantine),
			EventCounts: b.EventCounts, Latency: lat, Oldest: c.oldest, Times: c.times, Committed: time.Now()})
	}
	c.times = nil
	c.batch = store.Batch{}
	c.batchLines = 0
	c.stale = nil
	return nil
}

// maintain handles what happened to the files: new files appearing,
// rotation and truncation by others, the daemon's own rotation of the
// spool, and deletion of drained segments. It runs only when every source
// is at EOF (readAll returned false).
func (c *Collector) maintain(now time.Time) error {
	// Files that appeared since start (the spool is created by the first
	// hook call).
	for _, cand := range c.discover() {
		if c.following(cand.path) {
			continue
		}
		fi, err := os.Stat(cand.path)
		if err != nil {
			continue
		}
		if s := c.byID(statID(fi)); s != nil {
			// A followed file that was renamed (rotated by another
			// program): keep reading it under its new name.
			if s.kind == kindSpool || s.kind == kindFallback {
				c.log.Warn("file rotated by another program; draining it under its new name", "file", s.path, "now", cand.path)
				c.stale = append(c.stale, s.path)
				s.path, s.kind = cand.path, kindRotated
				if cand.kind == kindSegment {
					s.kind = kindSegment
				}
			}
			continue
		}
		s := &source{path: cand.path, kind: cand.kind}
		if _, err := s.open(nil); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				c.log.Warn("cannot read file; will retry", "file", cand.path, "err", err)
			}
			continue
		}
		c.log.Info("following", "file", cand.path, "offset", 0)
		c.sources = append(c.sources, s)
		c.resort()
	}
	kept := c.sources[:0]
	for _, s := range c.sources {
		s.eofPolls++ // maintain runs only once every source is at EOF
		st, err := s.check()
		if err != nil {
			return err
		}
		switch {
		case st == stateTruncated:
			c.truncated(s)
		case s.kind == kindSegment && len(s.buf) > 0 && s.eofPolls >= 3:
			// A segment never grows: a line without its newline at its end
			// will never be completed.
			c.quarantine(line{src: s, off: s.off, data: s.buf}, "partial last line at the end of a rotated segment", now)
			s.off += int64(len(s.buf))
			s.buf = nil
			c.touched(s)
			c.batchLines++
			kept = append(kept, s)
			continue
		case s.kind == kindSegment && len(s.buf) == 0 && s.off >= s.size():
			// Drained: commit its final offset first, then delete it, then
			// forget its checkpoint. A crash in between re-reads nothing: the
			// checkpoint still says "at the end".
			if err := c.commit(now); err != nil {
				return err
			}
			if err := os.Remove(s.path); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("delete drained segment: %w", err)
			}
			c.log.Info("segment drained and deleted", "file", s.path, "lines", s.lines)
			s.close()
			c.stale = append(c.stale, s.path)
			continue
		case st == stateGone && s.kind == kindRotated:
			// Another program deleted a rotated file we had drained.
			c.stale = append(c.stale, s.path)
			s.close()
			continue
		case st == stateReplaced || st == stateGone:
			if s.kind == kindSegment || s.kind == kindRotated {
				break // keep draining it under its name
			}
			// Rotated by someone else: the old file is still open. Keep
			// draining it for a few polls (a writer may still append),
			// then let the new file be picked up under the path.
			s.eofPolls++
			if s.eofPolls < 3 {
				break
			}
			if len(s.buf) > 0 {
				c.quarantine(line{src: s, off: s.off, data: s.buf}, "partial last line of a file rotated by another program", now)
				s.off += int64(len(s.buf))
				s.buf = nil
				c.touched(s)
				c.batchLines++
			}
			c.log.Warn("file rotated by another program; drained the old file", "file", s.path, "lines", s.lines)
			if err := c.commit(now); err != nil {
				return err
			}
			c.stale = append(c.stale, s.path)
			s.close()
			continue
		case s.kind == kindSpool:
			if s.off >= c.opts.RotateBytes && len(s.buf) == 0 {
				if err := c.rotate(s, now); err != nil {
					return err
				}
			}
		}
		kept = append(kept, s)
	}
	c.sources = kept
	return nil
}

// truncated restarts a source whose file was truncated (or rewritten):
// lines appended after the truncation are read from the start.
func (c *Collector) truncated(s *source) {
	c.log.Warn("file truncated or rewritten; reading it from the start", "file", s.path, "offset", s.off)
	c.mu.Lock()
	c.stats.Truncations++
	c.mu.Unlock()
	s.close()
	if _, err := s.open(nil); err != nil {
		c.log.Warn("cannot reopen truncated file", "file", s.path, "err", err)
	}
}

func (c *Collector) byID(id fileID) *source {
	for _, s := range c.sources {
		if s.f != nil && s.id == id {
			return s
		}
	}
	return nil
}

func (c *Collector) following(path string) bool {
	for _, s := range c.sources {
		if s.path == path {
			return true
		}
	}
	return false
}

// resort keeps segments first, then the spool, fallback and extras.
func (c *Collector) resort() {
	sort.SliceStable(c.sources, func(i, j int) bool {
		ki, kj := c.sources[i].kind, c.sources[j].kind
		if ki == kindSegment && kj != kindSegment {
			return true
		}
		return false
	})
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
	// Lines appended between our last read and the rename are in the
	// segment: they are read before it is deleted.
	return nil
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
