package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/tracevalue"
)

// bNovelty keeps the lexical vector of each skill's newest executions
// (docs/value.md), which the next executions' novelty is measured
// against (scoring.Novelty, before the commit): key skill_key NUL u64
// seq, value the execution's 384-byte vector, at most
// tracevalue.CacheSize per skill (a commit deletes the oldest beyond
// it). Created by the first commit, so a read-only open does not need it.
var bNovelty = []byte("novelty")

// NoveltyVectors returns the vectors kept of a skill's newest executions,
// oldest first.
func (db *DB) NoveltyVectors(skillKey string) ([]tracevalue.Vector, error) {
	var out []tracevalue.Vector
	err := db.view(func(tx *bolt.Tx) error {
		nb := tx.Bucket(bNovelty)
		if nb == nil {
			return nil
		}
		prefix := []byte(boundPart(skillKey) + "\x00")
		c := nb.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var vec tracevalue.Vector
			for i := range vec {
				if i < len(v) {
					vec[i] = int8(v[i])
				}
			}
			out = append(out, vec)
		}
		return nil
	})
	return out, err
}

// Forgets counts the skills ForgetSkill removed since the store was
// opened: a cache of the vectors (scoring.Novelty) starts again when it
// changes.
func (db *DB) Forgets() uint64 { return db.forgets.Load() }

// SkillKey is the key Commit files x under (its skill's key, bounded as
// every key part is).
func SkillKey(x *execution.Execution) string {
	c := record.Scored{Exec: *x}
	boundExecution(&c)
	return boundPart(c.Exec.Key())
}

// Held reports which of ids the store holds an execution under.
func (db *DB) Held(ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := db.view(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		for _, id := range ids {
			if ex.Get(bkey(id)) != nil {
				out[id] = true
			}
		}
		return nil
	})
	return out, err
}

// putVector keeps s's vector (putExecution, once s has its seq).
func putVector(tx *bolt.Tx, s *record.Scored) error {
	nb, err := tx.CreateBucketIfNotExists(bNovelty)
	if err != nil {
		return err
	}
	// A skill's vectors are appended in commit order (its oldest goes
	// from the front): full pages, not bbolt's half-full default.
	nb.FillPercent = 1
	raw := make([]byte, len(s.Vector))
	for i, x := range s.Vector {
		raw[i] = byte(x)
	}
	return nb.Put(append([]byte(s.SkillKey+"\x00"), u64(s.Seq)...), raw)
}

// trimVectors deletes the oldest vectors of each skill beyond
// tracevalue.CacheSize (the end of a commit that kept some).
func trimVectors(tx *bolt.Tx, skills map[string]bool) error {
	nb := tx.Bucket(bNovelty)
	if nb == nil {
		return nil
	}
	nb.FillPercent = 1
	for key := range skills {
		prefix := []byte(key + "\x00")
		var keys [][]byte
		c := nb.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			keys = append(keys, k)
		}
		for len(keys) > tracevalue.CacheSize {
			if err := nb.Delete(keys[0]); err != nil {
				return err
			}
			keys = keys[1:]
		}
	}
	return nil
}
