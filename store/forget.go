package store

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Forgotten says what ForgetSkill removed.
type Forgotten struct {
	Key        string `json:"skill_key"`
	Executions int    `json:"executions"`
	Versions   int    `json:"versions"`
	Decisions  int    `json:"decisions"`
}

// ForgetSkill removes a skill and everything stored of it in one
// transaction: its record, versions (with their contents), aggregates,
// executions (from both indexes, the counter adjusted), decisions and the
// mutation engine's state. Sessions keep their summaries, and an execution
// of the skill still open in the grouper is stored when it closes (the
// skill then starts again). ErrNotFound when no skill has that key.
func (db *DB) ForgetSkill(key string) (Forgotten, error) {
	// The skill's vectors go with it: scoring.Novelty reads them again
	// (novelty.go).
	defer db.forgets.Add(1)
	defer db.changes.touched(key)
	out := Forgotten{Key: key}
	err := db.update(func(tx *bolt.Tx) error {
		if tx.Bucket(bSkills).Get([]byte(key)) == nil {
			return fmt.Errorf("skill %q: %w", key, ErrNotFound)
		}
		prefix := []byte(key + "\x00")
		// Executions, through the version index: its keys end with ^seq,
		// the key of the same execution in by_seq.
		ex, bySeq := tx.Bucket(bExec), tx.Bucket(bBySeq)
		n, err := deletePrefix(tx.Bucket(bByVersion), prefix, func(k, id []byte) error {
			if err := ex.Delete(id); err != nil {
				return err
			}
			if err := deleteLabels(tx, id); err != nil {
				return err
			}
			return bySeq.Delete(k[len(k)-8:])
		})
		if err != nil {
			return err
		}
		out.Executions = n
		if n > 0 {
			meta := tx.Bucket(bMeta)
			if err := meta.Put(kExecCount, u64(getU64(meta.Get(kExecCount))-uint64(n))); err != nil {
				return err
			}
		}
		if out.Versions, err = deletePrefix(tx.Bucket(bVersions), prefix, nil); err != nil {
			return err
		}
		if _, err = deletePrefix(tx.Bucket(bAggregates), prefix, nil); err != nil {
			return err
		}
		if err := deleteActivation(tx, prefix); err != nil {
			return err
		}
		if nb := tx.Bucket(bNovelty); nb != nil {
			if _, err = deletePrefix(nb, prefix, nil); err != nil {
				return err
			}
		}
		if out.Decisions, err = deletePrefix(tx.Bucket(bDecisions), prefix, nil); err != nil {
			return err
		}
		if pb := tx.Bucket(bPruned); pb != nil {
			if _, err := deletePrefix(pb, prefix, nil); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bSkillState).Delete([]byte(key)); err != nil {
			return err
		}
		return tx.Bucket(bSkills).Delete([]byte(key))
	})
	return out, err
}

// deletePrefix deletes every key of b starting with prefix, calling fn
// (when set) with each key and value first, and returns how many.
func deletePrefix(b *bolt.Bucket, prefix []byte, fn func(k, v []byte) error) (int, error) {
	var keys [][]byte
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if fn != nil {
			if err := fn(k, v); err != nil {
				return 0, err
			}
		}
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
