package store

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// The outbox of a consumer that copies executions elsewhere (the team
// store, package team). Its log is the by_seq index that Commit writes in
// the same transaction as each execution, so an execution is in the
// outbox exactly when it is stored, and nothing is written twice. What a
// consumer owns is its cursor: the seq of the last execution the other
// side committed, in the outbox bucket, moved forward only after that
// commit (OutboxAdvance). A crash between the two replays the batch, which
// the other side must ignore (there: INSERT … ON CONFLICT DO NOTHING on
// machine and execution ID). Decisions have a cursor of their own on the
// decisions bucket's sequence.

var bOutbox = []byte("outbox")

// OutboxState is a consumer's position in the outbox.
type OutboxState struct {
	// Cursor is the seq of the last execution shipped; Shipped counts the
	// executions shipped so far.
	Cursor  uint64 `json:"cursor"`
	Shipped uint64 `json:"shipped"`
	// Last is the seq of the newest stored execution; Pending counts the
	// executions stored after Cursor (one forgotten before it was shipped
	// counts until the cursor passes it).
	Last    uint64 `json:"last"`
	Pending uint64 `json:"pending"`
	// DecisionCursor is the sequence of the last decision shipped,
	// LastDecision the newest decision's.
	DecisionCursor uint64 `json:"decision_cursor"`
	LastDecision   uint64 `json:"last_decision"`
}

type outboxRecord struct {
	Cursor         uint64 `json:"cursor"`
	Shipped        uint64 `json:"shipped"`
	DecisionCursor uint64 `json:"decision_cursor"`
}

func getOutbox(tx *bolt.Tx, name string) (outboxRecord, error) {
	var r outboxRecord
	b := tx.Bucket(bOutbox)
	if b == nil {
		return r, nil
	}
	if v := b.Get([]byte(name)); v != nil {
		if err := json.Unmarshal(v, &r); err != nil {
			return r, fmt.Errorf("decode outbox cursor %q: %w", name, err)
		}
	}
	return r, nil
}

// Outbox returns consumer name's position.
func (db *DB) Outbox(name string) (OutboxState, error) {
	var s OutboxState
	err := db.view(func(tx *bolt.Tx) error {
		r, err := getOutbox(tx, name)
		if err != nil {
			return err
		}
		s.Cursor, s.Shipped, s.DecisionCursor = r.Cursor, r.Shipped, r.DecisionCursor
		if m := tx.Bucket(bMeta); m != nil {
			s.Last = getU64(m.Get(kSeq))
		}
		if d := tx.Bucket(bDecisions); d != nil {
			s.LastDecision = d.Sequence()
		}
		if s.Last > s.Cursor {
			s.Pending = s.Last - s.Cursor
		}
		return nil
	})
	return s, err
}

// OutboxNext returns up to max stored executions after seq after, oldest
// first. The executions are as stored: tool responses were never kept.
func (db *DB) OutboxNext(after uint64, max int) ([]record.Scored, error) {
	var out []record.Scored
	err := db.view(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		c := tx.Bucket(bBySeq).Cursor()
		// Keys are ^seq, newest first: the oldest after the cursor is the
		// key just before ^after.
		var id []byte
		k, _ := c.Seek(u64(^after))
		if k == nil {
			k, id = c.Last()
		} else {
			k, id = c.Prev()
		}
		for ; k != nil && (max <= 0 || len(out) < max); k, id = c.Prev() {
			if ^getU64(k) <= after {
				continue
			}
			v := ex.Get(id)
			if v == nil {
				continue // forgotten since
			}
			var s record.Scored
			if err := decodeExec(v, &s); err != nil {
				return fmt.Errorf("decode execution %s: %w", id, err)
			}
			out = append(out, s)
		}
		return nil
	})
	return out, err
}

// OutboxAdvance moves consumer name's execution cursor to seq, counting
// shipped executions; a cursor never moves back. It is written without
// changing the store's generation: no view depends on it.
func (db *DB) OutboxAdvance(name string, seq uint64, shipped int) error {
	return db.setOutbox(name, func(r *outboxRecord) {
		if seq > r.Cursor {
			r.Cursor = seq
		}
		r.Shipped += uint64(shipped)
	})
}

// OutboxDecisions returns the decisions after sequence after, oldest
// first (decisions are few: this reads them all).
func (db *DB) OutboxDecisions(after uint64) ([]record.Decision, error) {
	var out []record.Decision
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bDecisions)
		if b == nil || b.Sequence() <= after {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var d record.Decision
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("decode decision %q: %w", k, err)
			}
			if d.Seq > after {
				out = append(out, d)
			}
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out, err
}

// OutboxAdvanceDecisions moves consumer name's decision cursor to seq.
func (db *DB) OutboxAdvanceDecisions(name string, seq uint64) error {
	return db.setOutbox(name, func(r *outboxRecord) {
		if seq > r.DecisionCursor {
			r.DecisionCursor = seq
		}
	})
}

// OutboxSend is one round of consumer name (the team shipper, the
// OpenTelemetry exporter): up to max executions after its cursor go to
// sendExecutions, then the decisions after its decision cursor to
// sendDecisions (each skipped when there is nothing to send), and each
// cursor moves only after its send returned nil, that is after the other
// side took the batch. It returns how many executions were sent: max
// means more may wait.
func (db *DB) OutboxSend(name string, max int, sendExecutions func([]record.Scored) error, sendDecisions func([]record.Decision) error) (int, error) {
	st, err := db.Outbox(name)
	if err != nil {
		return 0, err
	}
	xs, err := db.OutboxNext(st.Cursor, max)
	if err != nil {
		return 0, err
	}
	if len(xs) > 0 {
		if err := sendExecutions(xs); err != nil {
			return 0, err
		}
		if err := db.OutboxAdvance(name, xs[len(xs)-1].Seq, len(xs)); err != nil {
			return 0, err
		}
	}
	if st.LastDecision > st.DecisionCursor {
		ds, err := db.OutboxDecisions(st.DecisionCursor)
		if err != nil {
			return len(xs), err
		}
		if len(ds) > 0 {
			if err := sendDecisions(ds); err != nil {
				return len(xs), err
			}
			if err := db.OutboxAdvanceDecisions(name, ds[len(ds)-1].Seq); err != nil {
				return len(xs), err
			}
		}
	}
	return len(xs), nil
}

func (db *DB) setOutbox(name string, fn func(*outboxRecord)) error {
	if db.opts.ReadOnly {
		return fmt.Errorf("outbox %q: database opened read-only", name)
	}
	return noSpace(db.bolt.Update(func(tx *bolt.Tx) error {
		r, err := getOutbox(tx, name)
		if err != nil {
			return err
		}
		fn(&r)
		b, err := tx.CreateBucketIfNotExists(bOutbox)
		if err != nil {
			return err
		}
		return putJSON(b, []byte(name), r)
	}))
}
