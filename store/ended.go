package store

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// bEnded holds the part counts of ended execution threads whose
// executions are named by their numbers (raw payloads without sepa.ts):
// thread key → u64 (execution.Grouper.Ended). A session that comes back
// after the idle timeout, a restart or its SessionEnd numbers its parts on
// from there, so its new executions never take the IDs of its first ones.
// Created by the first commit that needs it, so a read-only open does not.
var bEnded = []byte("ended_threads")

// EndedThreads returns the saved part counts of ended threads.
func (db *DB) EndedThreads() (map[string]int, error) {
	out := map[string]int{}
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bEnded)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			out[string(bytes.Clone(k))] = int(getU64(v))
			return nil
		})
	})
	return out, err
}

// putEnded records part counts of ended threads.
func putEnded(tx *bolt.Tx, ended map[string]int) error {
	if len(ended) == 0 {
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(bEnded)
	if err != nil {
		return err
	}
	for k, n := range ended {
		if err := b.Put([]byte(k), u64(uint64(n))); err != nil {
			return err
		}
	}
	return nil
}
