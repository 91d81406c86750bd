package collector

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

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
	// The lines are the sources' buffers (source.read): ingested here,
	// before any source reads again.
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
	if len(bytes.TrimSpace(l.data)) == 0 {
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
	if c.opts.OnStop != nil && ev.HookEvent == event.Stop && ev.AgentID == "" {
		if x := c.g.Held(ev.SessionID); x != nil {
			c.opts.OnStop(x, ev.Time)
		}
	}
}

func (c *Collector) quarantine(l line, reason string, now time.Time) {
	raw := l.data
	if len(raw) > c.opts.QuarantineRaw {
		raw = raw[:c.opts.QuarantineRaw]
	}
	c.batch.Quarantine = append(c.batch.Quarantine, record.QuarantineEntry{
		File: l.src.path, Offset: l.off, Raw: append([]byte(nil), raw...), Reason: reason, Time: now,
	})
	c.log.Warn("quarantined line", "file", l.src.path, "offset", l.off, "reason", reason)
}

func (c *Collector) addExecutions(xs []execution.Execution) {
	for i := range xs {
		x := xs[i]
		c.enrich(&x)
		if c.opts.Checked != nil {
			x.AfterStop = c.opts.Checked(&x)
		}
		c.batch.Executions = append(c.batch.Executions, c.scored(x))
	}
}

// scored scores x and checks its claims (package scoring) before the
// commit: the store persists them as they are.
func (c *Collector) scored(x execution.Execution) record.Scored {
	s := c.opts.Scorer.Score(&x)
	return record.Scored{Exec: x, Result: s.Result, Integrity: s.Integrity}
}

// commitBatch commits b once each of its executions not measured yet
// has its value (measure). When the commit fails, the vectors measured
// for it are not stored: Novelty reads them again from the store (a
// batch committed again later is not measured again).
func (c *Collector) commitBatch(b *store.Batch) error {
	err := c.measure(b.Executions)
	if err == nil {
		err = c.db.Commit(b)
	}
	if err != nil {
		c.novelty.Reset()
	}
	return err
}

// measure gives each execution not measured yet its value against its
// skill's previous executions (scoring.Novelty), in commit order. An
// execution the store will not store (its ID is held: a replay, or a
// taken ID) is not measured, so what is measured is what is stored.
func (c *Collector) measure(xs []record.Scored) error {
	var ids []string
	for i := range xs {
		if xs[i].Value == nil {
			ids = append(ids, xs[i].Exec.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	held, err := c.db.Held(ids)
	if err != nil {
		return err
	}
	for i := range xs {
		s := &xs[i]
		if s.Value != nil || held[s.Exec.ID] {
			continue
		}
		held[s.Exec.ID] = true // a second execution of the batch with this ID is not stored
		v, vec, err := c.novelty.Value(store.SkillKey(&s.Exec), &s.Exec, s.Result)
		if err != nil {
			return err
		}
		s.Value, s.Vector = &v, &vec
	}
	return nil
}

// commit writes the batch, the offsets of every followed file and the
// changed open executions in one transaction. When the store is full it
// keeps all of it for a later attempt and returns errStalled.
func (c *Collector) commit(now time.Time) error {
	// The grouper's changes move into the batch, so a failed attempt
	// keeps them for the next one.
	put, del := c.g.Dirty()
	mergeOpen(&c.batch, put, del)
	for k, n := range c.g.Ended() {
		if c.batch.Ended == nil {
			c.batch.Ended = map[string]int{}
		}
		c.batch.Ended[k] = n
	}
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
	if err := c.commitBatch(&b); err != nil {
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
