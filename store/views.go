package store

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Read helpers for the query layer (query/, api/). They only read, and they
// keep every bbolt transaction short: a long read transaction pins pages
// (the file grows) and delays a commit that has to remap the file, so scans
// read in chunks and callers do their work between transactions.

// scanChunk bounds the records one read transaction of a scan decodes.
const scanChunk = 512

// TxID returns the ID of the last committed write transaction. It changes
// whenever anything is written, so a reader can keep what it computed from
// the database until it does (the API's cache).
func (db *DB) TxID() (uint64, error) {
	var id int
	err := db.bolt.View(func(tx *bolt.Tx) error {
		id = tx.ID()
		return nil
	})
	return uint64(max(id, 0)), err
}

// SkillKeys returns every skill key, in key order.
func (db *DB) SkillKeys() ([]string, error) {
	var out []string
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bSkills).ForEach(func(k, _ []byte) error {
			out = append(out, string(k))
			return nil
		})
	})
	return out, err
}

// SkillsByKey returns the named skills with their versions and aggregates,
// read in one transaction, in the order of keys; unknown keys are skipped.
// Each skill is consistent with itself (its record, versions and
// aggregates come from one snapshot).
func (db *DB) SkillsByKey(keys []string) ([]Skill, error) {
	out := make([]Skill, 0, len(keys))
	err := db.view(func(tx *bolt.Tx) error {
		for _, k := range keys {
			s, err := getSkill(tx, k)
			if err != nil {
				return err
			}
			if s == nil {
				continue
			}
			if s.Versions, err = db.versions(tx, k); err != nil {
				return err
			}
			s.State = bytes.Clone(tx.Bucket(bSkillState).Get([]byte(k)))
			out = append(out, *s)
		}
		return nil
	})
	return out, err
}

// WalkExecutions calls fn with stored executions, newest first: those of
// one version when skillKey and version are both set (any version string,
// "unknown" included), else every execution. It reads scanChunk records per
// transaction and calls fn between transactions, never inside one. fn
// returns false to stop. A commit between two chunks may add newer
// executions: the walk does not see them, and sees every older one once.
func (db *DB) WalkExecutions(skillKey, version string, fn func(*Scored) bool) error {
	var index []byte
	var prefix []byte
	if skillKey != "" && version != "" {
		index, prefix = bByVersion, []byte(skillKey+"\x00"+version+"\x00")
	} else {
		index = bBySeq
	}
	var after []byte // last index key read
	for {
		var chunk []Scored
		var last []byte
		err := db.view(func(tx *bolt.Tx) error {
			ex := tx.Bucket(bExec)
			c := tx.Bucket(index).Cursor()
			var k, id []byte
			switch {
			case after != nil:
				k, id = c.Seek(after)
				if k != nil && bytes.Equal(k, after) {
					k, id = c.Next()
				}
			case prefix != nil:
				k, id = c.Seek(prefix)
			default:
				k, id = c.First()
			}
			for ; k != nil && len(chunk) < scanChunk; k, id = c.Next() {
				if prefix != nil && !bytes.HasPrefix(k, prefix) {
					break
				}
				v := ex.Get(id)
				if v == nil {
					return fmt.Errorf("index names missing execution %s", id)
				}
				var s Scored
				if err := json.Unmarshal(v, &s); err != nil {
					return fmt.Errorf("decode execution %s: %w", id, err)
				}
				chunk = append(chunk, s)
				last = k
			}
			last = bytes.Clone(last)
			return nil
		})
		if err != nil {
			return err
		}
		for i := range chunk {
			if !fn(&chunk[i]) {
				return nil
			}
		}
		if len(chunk) < scanChunk {
			return nil
		}
		after = last
	}
}

// Match reports whether an execution passes the filter (the same test
// Executions applies), for callers walking with WalkExecutions.
func (f *Filter) Match(s *Scored) bool { return f.match(s) }

// SkillList returns every skill record, without versions, in key order.
func (db *DB) SkillList() ([]Skill, error) {
	var out []Skill
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bSkills).ForEach(func(k, v []byte) error {
			var s Skill
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("decode skill %q: %w", k, err)
			}
			out = append(out, s)
			return nil
		})
	})
	return out, err
}

// QuarantineNewest returns up to limit quarantined lines, newest first
// (all when limit <= 0).
func (db *DB) QuarantineNewest(limit int) ([]QuarantineEntry, error) {
	var out []QuarantineEntry
	err := db.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bQuarantine).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var e QuarantineEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("decode quarantined line %x: %w", k, err)
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}
