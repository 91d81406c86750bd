package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// SkillStates returns the mutation engine's state of every skill that has
// one, by skill key: one scan of the small state bucket (status uses it
// for the undecided candidates).
func (db *DB) SkillStates() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSkillState)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			out[string(k)] = bytes.Clone(v)
			return nil
		})
	})
	return out, err
}
