package store

import (
	bolt "go.etcd.io/bbolt"
)

// bImported holds what `sepad import` fed to the pipeline: the key of
// every imported event (importer.Record.Key) and a marker per imported
// session ("s" NUL session ID), so a second import adds nothing and a
// session sepad's own hook recorded is not imported over. Created by the
// first import, so a read-only open does not need it.
var bImported = []byte("imported")

// ImportState says which of keys the store holds, and which of sessions
// it holds from sepad's own spool (executions stored and no import of
// that session).
func (db *DB) ImportState(keys, sessions []string) (known, spool map[string]bool, err error) {
	known, spool = map[string]bool{}, map[string]bool{}
	err = db.bolt.View(func(tx *bolt.Tx) error {
		ib := tx.Bucket(bImported)
		if ib != nil {
			for _, k := range keys {
				if ib.Get(bkey(k)) != nil {
					known[k] = true
				}
			}
		}
		sb := tx.Bucket(bSessions)
		for _, s := range sessions {
			if sb.Get(bkey(s)) == nil {
				continue
			}
			if ib == nil || ib.Get(sessionMarker(s)) == nil {
				spool[s] = true
			}
		}
		return nil
	})
	return known, spool, err
}

func sessionMarker(s string) []byte { return []byte("s\x00" + boundPart(s)) }

// putImported records an import's event keys and sessions.
func putImported(tx *bolt.Tx, keys, sessions []string) error {
	if len(keys) == 0 && len(sessions) == 0 {
		return nil
	}
	ib, err := tx.CreateBucketIfNotExists(bImported)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := ib.Put(bkey(k), []byte{1}); err != nil {
			return err
		}
	}
	for _, s := range sessions {
		if err := ib.Put(sessionMarker(s), []byte{1}); err != nil {
			return err
		}
	}
	return nil
}
