package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
)

// bLabels holds every label ever given, keyed by execution ID, NUL, and
// the label's seq (big-endian): an execution's labels in the order they
// were given. Created by the first label (older databases lack it).
var bLabels = []byte("labels")

// LabelApplied says what PutLabel did.
type LabelApplied struct {
	Label reward.Label `json:"label"`
	// Execution is the execution as stored after the label.
	Execution record.Scored `json:"execution"`
	// Before is its result before the label; Rescored is true when the
	// label changed the stored result (and its version's aggregate).
	Before   fitness.Result `json:"before"`
	Rescored bool           `json:"rescored"`
}

// PutLabel stores a label of the execution with exactly l.ExecutionID, in
// one transaction: the label gets the next seq of the commit order
// (shared with executions), is kept beside the earlier ones (never
// overwriting them), and, when rescore (nil: none) returns a result other
// than the stored one, the execution's stored result and its version's
// aggregate are updated with it. ErrNotFound when no such execution.
func (db *DB) PutLabel(l reward.Label, rescore func(fitness.Result, reward.Label) fitness.Result) (*LabelApplied, error) {
	var out *LabelApplied
	defer db.changes.touchedAll()
	err := noSpace(db.update(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		v := ex.Get([]byte(l.ExecutionID))
		if v == nil {
			return fmt.Errorf("execution %q: %w", l.ExecutionID, ErrNotFound)
		}
		var s record.Scored
		if err := decodeExec(v, &s); err != nil {
			return fmt.Errorf("decode execution %s: %w", l.ExecutionID, err)
		}
		meta := tx.Bucket(bMeta)
		seq := getU64(meta.Get(kSeq)) + 1
		if err := meta.Put(kSeq, u64(seq)); err != nil {
			return err
		}
		l.Seq = seq
		if l.Time.IsZero() {
			l.Time = time.Now().UTC()
		}
		lb, err := tx.CreateBucketIfNotExists(bLabels)
		if err != nil {
			return err
		}
		if err := putJSON(lb, labelKey(l.ExecutionID, seq), l); err != nil {
			return err
		}
		out = &LabelApplied{Label: l, Before: s.Result}
		if rescore != nil {
			if nr := rescore(s.Result, l); !reflect.DeepEqual(nr, s.Result) {
				old := s.Result
				s.Result = nr
				if err := db.putExec(ex, &s); err != nil {
					return err
				}
				if err := db.reaggregate(tx, &s, old); err != nil {
					return err
				}
				out.Rescored = true
			}
		}
		out.Execution = s
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// reaggregate brings the aggregate of s's version up to date after its
// result changed from old: a recount from the version's stored
// executions in commit order (the same accumulation as Commit's, so it
// equals what Commit would have built), or, for an aggregate Prune took
// executions from, an update in place (the removed scores are not there
// to recount).
func (db *DB) reaggregate(tx *bolt.Tx, s *record.Scored, old fitness.Result) error {
	ab := tx.Bucket(bAggregates)
	ak := aggKey(s.SkillKey, s.Version, s.Result.RubricVersion)
	if old.Scored && old.RubricVersion != s.Result.RubricVersion {
		return fmt.Errorf("relabel %s: rubric changed from %s to %s", s.Exec.ID, old.RubricVersion, s.Result.RubricVersion)
	}
	if prunedAggregate(tx, ak) {
		var st record.Tally
		if v := ab.Get(ak); v != nil {
			if err := json.Unmarshal(v, &st); err != nil {
				return fmt.Errorf("decode aggregate %q: %w", ak, err)
			}
		}
		switch {
		case old.Scored && s.Result.Scored:
			st.State.Replace(s.Exec.ID, old.Score, s.Result.Score)
		case s.Result.Scored:
			st.Add(s, db.opts.Aggregate)
		}
		return putJSON(ab, ak, st)
	}
	st, err := db.recount(tx, s.SkillKey, s.Version, s.Result.RubricVersion)
	if err != nil {
		return err
	}
	if st.State.N == 0 {
		return ab.Delete(ak)
	}
	return putJSON(ab, ak, st)
}

// recount builds the aggregate state of (skill, version, rubric) from the
// stored executions, oldest first.
func (db *DB) recount(tx *bolt.Tx, skill, version, rubric string) (*record.Tally, error) {
	ex := tx.Bucket(bExec)
	prefix := []byte(skill + "\x00" + version + "\x00")
	var xs []record.Scored
	c := tx.Bucket(bByVersion).Cursor()
	for k, id := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, id = c.Next() {
		v := ex.Get(id)
		if v == nil {
			return nil, fmt.Errorf("by_version %q names missing execution %s", k, id)
		}
		var s record.Scored
		if err := decodeExec(v, &s); err != nil {
			return nil, fmt.Errorf("decode execution %s: %w", id, err)
		}
		if s.Result.Scored && s.Result.RubricVersion == rubric {
			xs = append(xs, s)
		}
	}
	st := &record.Tally{}
	for i := len(xs) - 1; i >= 0; i-- { // the index is newest first
		st.Add(&xs[i], db.opts.Aggregate)
	}
	return st, nil
}

// Labels returns every label of an execution (its exact ID), newest first.
func (db *DB) Labels(id string) ([]reward.Label, error) {
	var out []reward.Label
	err := db.view(func(tx *bolt.Tx) error {
		lb := tx.Bucket(bLabels)
		if lb == nil {
			return nil
		}
		prefix := []byte(id + "\x00")
		c := lb.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var l reward.Label
			if err := json.Unmarshal(v, &l); err != nil {
				return fmt.Errorf("decode label %q: %w", k, err)
			}
			out = append([]reward.Label{l}, out...)
		}
		return nil
	})
	return out, err
}

// deleteLabels removes an execution's labels (Forget, Prune).
func deleteLabels(tx *bolt.Tx, id []byte) error {
	lb := tx.Bucket(bLabels)
	if lb == nil {
		return nil
	}
	_, err := deletePrefix(lb, append(append([]byte{}, id...), 0), nil)
	return err
}

func labelKey(id string, seq uint64) []byte {
	return append([]byte(id+"\x00"), u64(seq)...)
}
