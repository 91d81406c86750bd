package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
)

// eachChunk is how many executions Each and EachOfVersion decode per
// read transaction (a variable for the tests' small chunks).
var eachChunk = 512

// Each calls fn with every stored execution in commit order (oldest
// first) and its newest label (nil when it has none), until fn returns an
// error, which Each returns. It reads eachChunk records per short read
// transaction and calls fn between transactions, never inside one, so its
// memory does not grow with the store and a writer is never held up; a
// commit between two chunks adds executions Each does not see (they are
// newer than the walk started).
func (db *DB) Each(fn func(s *record.Scored, label *reward.Label) error) error {
	var last []byte // by_seq key of the last execution handed out
	var end []byte  // by_seq key of the newest execution when the walk started
	first := true
	for {
		type item struct {
			s record.Scored
			l *reward.Label
		}
		var chunk []item
		err := db.view(func(tx *bolt.Tx) error {
			c := tx.Bucket(bBySeq).Cursor()
			ex, lb := tx.Bucket(bExec), tx.Bucket(bLabels)
			var k, id []byte
			if first {
				// by_seq keys are ^seq: the last key is the oldest.
				if fk, _ := c.First(); fk != nil {
					end = bytes.Clone(fk)
				}
				k, id = c.Last()
			} else {
				k, _ = c.Seek(last)
				if k != nil && bytes.Equal(k, last) {
					k, id = c.Prev()
				} else if k != nil {
					// last was deleted (a prune): Seek found an older one
					// or the next; anything >= last is older and done.
					k, id = c.Prev()
				} else {
					k, id = c.Last()
				}
			}
			for ; k != nil && len(chunk) < eachChunk; k, id = c.Prev() {
				if end == nil || bytes.Compare(k, end) < 0 {
					break // newer than the walk
				}
				v := ex.Get(id)
				if v == nil {
					continue
				}
				var it item
				if err := decodeExec(v, &it.s); err != nil {
					return fmt.Errorf("decode execution %s: %w", id, err)
				}
				if lb != nil {
					prefix := append(bytes.Clone(id), 0)
					lc := lb.Cursor()
					var lv []byte
					for lk, v := lc.Seek(prefix); lk != nil && bytes.HasPrefix(lk, prefix); lk, v = lc.Next() {
						lv = v
					}
					if lv != nil {
						var l reward.Label
						if err := json.Unmarshal(lv, &l); err != nil {
							return fmt.Errorf("decode a label of %s: %w", id, err)
						}
						it.l = &l
					}
				}
				chunk = append(chunk, it)
				last = bytes.Clone(k)
			}
			return nil
		})
		first = false
		if err != nil {
			return err
		}
		for i := range chunk {
			if err := fn(&chunk[i].s, chunk[i].l); err != nil {
				return err
			}
		}
		if len(chunk) < eachChunk {
			return nil
		}
	}
}

// EachOfVersion calls fn with the executions of one version of a skill
// (its exact hash, "unknown" included) committed up to maxSeq, in commit
// order (oldest first), until fn returns an error, which it returns. With
// maxSeq 0 it stops at the version's newest execution when the walk
// started. Like Each, it decodes at most eachChunk records per short read
// transaction and calls fn between transactions, so its memory does not
// grow with the version's history (the mutation engine rebuilds a
// version's sample with it after a restart).
func (db *DB) EachOfVersion(skillKey, version string, maxSeq uint64, fn func(*record.Scored) error) error {
	prefix := []byte(skillKey + "\x00" + version + "\x00")
	// Keys end with ^seq: older is greater. end is the smallest key (the
	// newest execution) the walk hands out.
	var end, last []byte
	if maxSeq > 0 {
		end = append(bytes.Clone(prefix), u64(^maxSeq)...)
	}
	first := true
	for {
		var chunk []record.Scored
		err := db.view(func(tx *bolt.Tx) error {
			c := tx.Bucket(bByVersion).Cursor()
			ex := tx.Bucket(bExec)
			if first && end == nil {
				k, _ := c.Seek(prefix)
				if k == nil || !bytes.HasPrefix(k, prefix) {
					return nil // no executions
				}
				end = bytes.Clone(k)
			}
			var k, id []byte
			if first {
				k, _ = c.Seek(append(bytes.Clone(prefix), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))
			} else {
				k, _ = c.Seek(last)
			}
			// The key found is last itself, or (last was pruned, or this
			// is the first chunk) the next older one, or nothing: what
			// comes next is before it.
			if k != nil {
				k, id = c.Prev()
			} else {
				k, id = c.Last()
			}
			for ; k != nil && bytes.HasPrefix(k, prefix) && len(chunk) < eachChunk; k, id = c.Prev() {
				if bytes.Compare(k, end) < 0 {
					break // newer than maxSeq or than the walk
				}
				v := ex.Get(id)
				if v == nil {
					return fmt.Errorf("by_version %q names missing execution %s", k, id)
				}
				var s record.Scored
				if err := decodeExec(v, &s); err != nil {
					return fmt.Errorf("decode execution %s: %w", id, err)
				}
				chunk = append(chunk, s)
				last = bytes.Clone(k)
			}
			return nil
		})
		first = false
		if err != nil {
			return err
		}
		for i := range chunk {
			if err := fn(&chunk[i]); err != nil {
				return err
			}
		}
		if len(chunk) < eachChunk {
			return nil
		}
	}
}
