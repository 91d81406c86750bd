package collector

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// ErrImportStopped: the collector stopped before it ran the import.
var ErrImportStopped = errors.New("the daemon's collector has stopped")

type importJob struct {
	recs  []importer.Record
	reply chan importDone
}

type importDone struct {
	rep importer.Report
	err error
}

// Import feeds records read by package importer through the spool's
// pipeline (event.ParseLine, an execution.Grouper, the scorer, one store
// commit, OnCommit) and says what it did: the records the store already
// has (an earlier import) and those of sessions sepad's own hook recorded
// are left out; a payload the parser refuses is quarantined with its file
// and index. Each import groups its events with a grouper of its own,
// closed at its end: an imported log is history, its open turns end with
// it (incomplete). Calls the records mark as of unknown outcome are
// stored so (execution.ToolCall.Unknown).
//
// On a running collector the import runs on the collector's goroutine,
// between two of its commits; on one never opened (no daemon) it runs at
// once.
func (c *Collector) Import(recs []importer.Record) (importer.Report, error) {
	if c.cancel == nil {
		return c.runImport(recs)
	}
	j := importJob{recs: recs, reply: make(chan importDone, 1)}
	select {
	case c.imports <- j:
	case <-c.done:
		return importer.Report{}, ErrImportStopped
	}
	select {
	case d := <-j.reply:
		return d.rep, d.err
	case <-c.done:
		return importer.Report{}, ErrImportStopped
	}
}

func (c *Collector) runImport(recs []importer.Record) (importer.Report, error) {
	rep := importer.Report{Events: map[string]int{}}
	now := c.opts.Now()
	// What the collector read before comes first in commit order.
	if c.batchLines > 0 || len(c.batch.Executions) > 0 {
		if err := c.commit(now); err != nil {
			if errors.Is(err, errStalled) {
				return rep, fmt.Errorf("import: %w", store.ErrNoSpace)
			}
			return rep, err
		}
	}
	keys := make([]string, len(recs))
	var sessions []string
	seenSess := map[string]bool{}
	for i, r := range recs {
		keys[i] = r.Key
		if !seenSess[r.Session] {
			seenSess[r.Session] = true
			sessions = append(sessions, r.Session)
		}
	}
	known, spool, err := c.db.ImportState(keys, sessions)
	if err != nil {
		return rep, fmt.Errorf("import: %w", err)
	}
	unknown, failuresOnly := importer.Unknown(recs), importer.FailuresOnly(recs)
	g := execution.NewGrouper(execution.Options{})
	var b store.Batch
	var xs []execution.Execution
	fed := map[string]bool{}
	for _, r := range recs {
		switch {
		case known[r.Key]:
			rep.AlreadyStored++
			continue
		case spool[r.Session]:
			rep.SpoolSessions++
			continue
		}
		ev, err := event.ParseLine(r.Payload)
		if err != nil {
			reason := strings.TrimPrefix(err.Error(), event.ErrMalformed.Error()+": ")
			rep.Skipped = append(rep.Skipped, importer.Skip{File: r.File, Index: r.Index, Reason: reason})
			raw := r.Payload
			if len(raw) > c.opts.QuarantineRaw {
				raw = raw[:c.opts.QuarantineRaw]
			}
			b.Quarantine = append(b.Quarantine, record.QuarantineEntry{File: r.File, Offset: int64(r.Index),
				Raw: append([]byte(nil), raw...), Reason: "import: " + reason, Time: now})
			continue
		}
		if !r.Time.IsZero() {
			ev.Time = r.Time
		}
		if ev.ToolUseID == "" {
			ev.ToolUseID = r.ToolUseID
		}
		rep.Imported++
		rep.Events[ev.HookEvent]++
		b.ImportKeys = append(b.ImportKeys, r.Key)
		if !fed[r.Session] {
			fed[r.Session] = true
			b.ImportSessions = append(b.ImportSessions, r.Session)
		}
		xs = append(xs, g.AddAt(&ev, ev.Time)...)
	}
	xs = append(xs, g.Flush()...)
	b.EventCounts = map[string]int64{}
	for k, n := range rep.Events {
		b.EventCounts[k] = int64(n)
	}
	for i := range xs {
		x := &xs[i]
		x.Origin = "import"
		for j := range x.Calls {
			cl := &x.Calls[j]
			if cl.NoPost && unknown[x.SessionID+"\x00"+cl.ID] {
				cl.NoPost, cl.Unknown = false, true
				x.FailuresOnly = failuresOnly[x.SessionID]
			}
		}
		rep.UnknownOutcome += x.UnknownOutcomes()
		b.Executions = append(b.Executions, c.scored(*x))
	}
	start := time.Now()
	if err := c.commitBatch(&b); err != nil {
		return rep, fmt.Errorf("import: commit %d executions: %w", len(b.Executions), err)
	}
	lat := time.Since(start)
	stored := b.Executions[:0:0]
	for _, x := range b.Executions {
		if x.Seq != 0 {
			stored = append(stored, x)
		}
	}
	rep.Executions = len(stored)
	rep.Collisions = len(b.Collisions)
	for _, col := range b.Collisions {
		c.log.Error("imported execution not stored: its ID is taken; quarantined", "id", col.ID, "held", col.Held, "refused", col.New)
	}
	c.mu.Lock()
	c.stats.Executions += int64(len(stored))
	c.stats.Quarantined += int64(len(b.Quarantine))
	c.mu.Unlock()
	c.log.Info("import committed", "payloads", rep.Imported, "executions", rep.Executions, "already_stored", rep.AlreadyStored,
		"spool_sessions", rep.SpoolSessions, "unknown_outcome", rep.UnknownOutcome)
	if c.opts.OnCommit != nil {
		c.opts.OnCommit(CommitInfo{Executions: stored, Quarantined: len(b.Quarantine), EventCounts: b.EventCounts,
			Latency: lat, Committed: time.Now()})
	}
	return rep, nil
}
