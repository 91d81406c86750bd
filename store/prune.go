package store

import (
	"encoding/json"
	"time"

	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// bPruned records, per aggregate key, how many of its executions Prune
// removed: the aggregate keeps counting them, so CheckInvariants does not
// recount it from the executions left.
var bPruned = []byte("pruned")

// Pruned says what Prune removed.
type Pruned struct {
	Before      time.Time `json:"before"`
	Executions  int       `json:"executions"`
	Quarantined int       `json:"quarantined"`
}

// pruneView is what Prune decodes of a stored execution.
type pruneView struct {
	Exec struct {
		StartedAt time.Time `json:"started_at"`
		EndedAt   time.Time `json:"ended_at"`
	} `json:"execution"`
	Result struct {
		RubricVersion string `json:"rubric_version"`
		Scored        bool   `json:"scored"`
	} `json:"result"`
	SkillKey string    `json:"skill_key"`
	Version  string    `json:"version"`
	Seq      uint64    `json:"seq"`
	Stored   time.Time `json:"stored"`
}

// at is when Prune dates an execution: the later of when it ran and
// when sepad stored it, so that a replay of old sessions is kept as long
// as what was just recorded.
func (s *pruneView) at() time.Time {
	at := s.Exec.EndedAt
	if at.IsZero() {
		at = s.Exec.StartedAt
	}
	if s.Stored.After(at) {
		at = s.Stored
	}
	return at
}

// PruneCount counts, without removing anything, what Prune(t) would
// remove: `sepad prune` says it before asking for --yes.
func (db *DB) PruneCount(t time.Time) (Pruned, error) {
	out := Pruned{Before: t.UTC()}
	err := db.bolt.View(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		err := tx.Bucket(bBySeq).ForEach(func(_, id []byte) error {
			var s pruneView
			if err := decodeExec(ex.Get(id), &s); err != nil {
				return err
			}
			if s.at().Before(t) {
				out.Executions++
			}
			return nil
		})
		if err != nil {
			return err
		}
		return tx.Bucket(bQuarantine).ForEach(func(_, v []byte) error {
			var q record.QuarantineEntry
			if json.Unmarshal(v, &q) == nil && q.Time.Before(t) {
				out.Quarantined++
			}
			return nil
		})
	})
	return out, err
}

// pruneChunk bounds the executions deleted per transaction.
const pruneChunk = 5000

// Prune removes the stored executions that ended (else started) before t
// and were stored before t, and the quarantined lines recorded before t:
// they
// hold prompts, answers, tool errors and raw lines, which may contain
// secrets. Every version's aggregate, record and content, the decisions
// and the sessions' summaries are kept: grades do not change. A pruned
// execution can no longer be explained or listed.
func (db *DB) Prune(t time.Time) (Pruned, error) {
	defer db.changes.touchedAll()
	out := Pruned{Before: t.UTC()}
	type victim struct{ id, seqKey, verKey, aggKey []byte }
	var vs []victim
	err := db.bolt.View(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		return tx.Bucket(bBySeq).ForEach(func(k, id []byte) error {
			var s pruneView
			if err := decodeExec(ex.Get(id), &s); err != nil {
				return err
			}
			if !s.at().Before(t) {
				return nil
			}
			v := victim{id: append([]byte(nil), id...), seqKey: append([]byte(nil), k...), verKey: versionIndexKey(s.SkillKey, s.Version, s.Seq)}
			if s.Result.Scored {
				v.aggKey = aggKey(s.SkillKey, s.Version, s.Result.RubricVersion)
			}
			vs = append(vs, v)
			return nil
		})
	})
	if err != nil {
		return out, err
	}
	for len(vs) > 0 {
		chunk := vs[:min(pruneChunk, len(vs))]
		vs = vs[len(chunk):]
		err := db.update(func(tx *bolt.Tx) error {
			pb, err := tx.CreateBucketIfNotExists(bPruned)
			if err != nil {
				return err
			}
			ex, bySeq, byVer := tx.Bucket(bExec), tx.Bucket(bBySeq), tx.Bucket(bByVersion)
			n := 0
			for _, v := range chunk {
				if ex.Get(v.id) == nil {
					continue // gone since the scan (forgotten)
				}
				for _, del := range []func() error{func() error { return ex.Delete(v.id) }, func() error { return bySeq.Delete(v.seqKey) },
					func() error { return byVer.Delete(v.verKey) }, func() error { return deleteLabels(tx, v.id) }} {
					if err := del(); err != nil {
						return err
					}
				}
				if v.aggKey != nil {
					if err := pb.Put(v.aggKey, u64(getU64(pb.Get(v.aggKey))+1)); err != nil {
						return err
					}
				}
				n++
			}
			meta := tx.Bucket(bMeta)
			if err := meta.Put(kExecCount, u64(getU64(meta.Get(kExecCount))-uint64(n))); err != nil {
				return err
			}
			out.Executions += n
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	err = db.update(func(tx *bolt.Tx) error {
		qb := tx.Bucket(bQuarantine)
		var old [][]byte
		err := qb.ForEach(func(k, v []byte) error {
			var q record.QuarantineEntry
			if json.Unmarshal(v, &q) == nil && q.Time.Before(t) {
				old = append(old, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range old {
			if err := qb.Delete(k); err != nil {
				return err
			}
		}
		out.Quarantined = len(old)
		meta := tx.Bucket(bMeta)
		return meta.Put(kQuarantineKept, u64(getU64(meta.Get(kQuarantineKept))-uint64(len(old))))
	})
	return out, err
}

// prunedAggregate reports an aggregate Prune removed executions of.
func prunedAggregate(tx *bolt.Tx, ak []byte) bool {
	b := tx.Bucket(bPruned)
	return b != nil && b.Get(ak) != nil
}
