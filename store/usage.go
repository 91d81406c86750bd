package store

import (
	"encoding/json"
	"fmt"

	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// bTranscripts holds the read position of every session transcript the
// collector reads (package transcript), committed with the executions
// whose part of the transcript moved it.
var bTranscripts = []byte("transcripts")

func putTranscripts(tx *bolt.Tx, offs []record.TranscriptOffset) error {
	if len(offs) == 0 {
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(bTranscripts)
	if err != nil {
		return err
	}
	for _, o := range offs {
		if err := putJSON(b, bkey(o.Path), o); err != nil {
			return err
		}
	}
	return nil
}

// TranscriptOffsets returns the read position of every transcript.
func (db *DB) TranscriptOffsets() ([]record.TranscriptOffset, error) {
	var out []record.TranscriptOffset
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bTranscripts)
		if b == nil {
			return nil // a database no transcript was read into
		}
		return b.ForEach(func(k, v []byte) error {
			var o record.TranscriptOffset
			if err := json.Unmarshal(v, &o); err != nil {
				return fmt.Errorf("decode transcript offset %q: %w", k, err)
			}
			out = append(out, o)
			return nil
		})
	})
	return out, err
}

// TranscriptOffset returns the read position of one transcript (ok false:
// none stored), for a collector that keeps in memory only the positions
// it has not committed yet.
func (db *DB) TranscriptOffset(path string) (o record.TranscriptOffset, ok bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bTranscripts)
		if b == nil {
			return nil
		}
		v := b.Get(bkey(path))
		if v == nil {
			return nil
		}
		if err := json.Unmarshal(v, &o); err != nil {
			return fmt.Errorf("decode transcript offset %q: %w", path, err)
		}
		ok = true
		return nil
	})
	return o, ok, err
}
