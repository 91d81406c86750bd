package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/record"
)

// view runs a read transaction; a database opened read-only before the
// daemon ever ran has no buckets, and reads then find nothing.
func (db *DB) view(fn func(tx *bolt.Tx) error) error {
	return db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bMeta) == nil {
			return nil
		}
		return fn(tx)
	})
}

// Offsets returns every committed read position.
func (db *DB) Offsets() ([]record.Offset, error) {
	var out []record.Offset
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bOffsets).ForEach(func(k, v []byte) error {
			var o record.Offset
			if err := json.Unmarshal(v, &o); err != nil {
				return fmt.Errorf("decode offset %q: %w", k, err)
			}
			out = append(out, o)
			return nil
		})
	})
	return out, err
}

// OpenStates returns the saved state of every open execution thread.
func (db *DB) OpenStates() (map[string][]byte, error) {
	out := map[string][]byte{}
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bOpen).ForEach(func(k, v []byte) error {
			out[string(k)] = bytes.Clone(v)
			return nil
		})
	})
	return out, err
}

// Execution returns one stored execution by ID (or unique ID prefix).
func (db *DB) Execution(id string) (*record.Scored, error) {
	var out *record.Scored
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bExec)
		v := b.Get([]byte(id))
		if v == nil && len(id) >= 4 {
			c := b.Cursor()
			k, val := c.Seek([]byte(id))
			if k != nil && bytes.HasPrefix(k, []byte(id)) {
				if k2, _ := c.Next(); k2 != nil && bytes.HasPrefix(k2, []byte(id)) {
					return fmt.Errorf("execution id %q is ambiguous", id)
				}
				v = val
			}
		}
		if v == nil {
			return fmt.Errorf("execution %q: %w", id, ErrNotFound)
		}
		var s record.Scored
		if err := decodeExec(v, &s); err != nil {
			return fmt.Errorf("decode execution %q: %w", id, err)
		}
		out = &s
		return nil
	})
	return out, err
}

// Executions lists executions newest first. With SkillKey it walks only
// that skill's version indexes (with Version, only the versions whose hash
// starts with it, "unknown" included), merged by commit order, and never
// the whole database; otherwise the global index. MaxSeq starts the walk
// at that execution instead of filtering the newer ones out.
func (db *DB) Executions(f record.Filter) ([]record.Scored, error) {
	var out []record.Scored
	err := db.view(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		next := indexWalk(tx, &f)
		for id := next(); id != nil; id = next() {
			v := ex.Get(id)
			if v == nil {
				return fmt.Errorf("index names missing execution %s", id)
			}
			var s record.Scored
			if err := decodeExec(v, &s); err != nil {
				return fmt.Errorf("decode execution %s: %w", id, err)
			}
			if !f.Match(&s) {
				continue
			}
			out = append(out, s)
			if f.Limit > 0 && len(out) >= f.Limit {
				break
			}
		}
		return nil
	})
	return out, err
}

// indexWalk returns a function yielding the IDs of the executions f can
// match, newest first, and nil at the end. Both indexes end their keys
// with ^seq, so the newest of several version cursors is the one with
// the smallest suffix.
func indexWalk(tx *bolt.Tx, f *record.Filter) func() []byte {
	var start []byte
	if f.MaxSeq > 0 {
		start = u64(^f.MaxSeq)
	}
	if f.SkillKey == "" {
		c := tx.Bucket(bBySeq).Cursor()
		k, id := c.First()
		if start != nil {
			k, id = c.Seek(start)
		}
		return func() []byte {
			if k == nil {
				return nil
			}
			out := id
			k, id = c.Next()
			return out
		}
	}
	type head struct {
		c      *bolt.Cursor
		prefix []byte
		k, id  []byte
	}
	var heads []*head
	vprefix := []byte(f.SkillKey + "\x00")
	vc := tx.Bucket(bVersions).Cursor()
	for k, _ := vc.Seek(vprefix); k != nil && bytes.HasPrefix(k, vprefix); k, _ = vc.Next() {
		hash := k[len(vprefix):]
		if !bytes.HasPrefix(hash, []byte(f.Version)) {
			continue
		}
		h := &head{c: tx.Bucket(bByVersion).Cursor(), prefix: versionIndexKey(f.SkillKey, string(hash), 0)[:len(vprefix)+len(hash)+1]}
		h.k, h.id = h.c.Seek(append(bytes.Clone(h.prefix), start...))
		heads = append(heads, h)
	}
	return func() []byte {
		var best *head
		for _, h := range heads {
			if h.k == nil || !bytes.HasPrefix(h.k, h.prefix) {
				continue
			}
			if best == nil || bytes.Compare(h.k[len(h.prefix):], best.k[len(best.prefix):]) < 0 {
				best = h
			}
		}
		if best == nil {
			return nil
		}
		out := best.id
		best.k, best.id = best.c.Next()
		return out
	}
}

// Skills returns every skill with its versions (oldest first) and their
// aggregates under the current rubric version.
func (db *DB) Skills() ([]record.Skill, error) {
	var out []record.Skill
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bSkills).ForEach(func(k, v []byte) error {
			var s record.Skill
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			vs, err := db.versions(tx, s.Key)
			if err != nil {
				return err
			}
			s.Versions = vs
			s.State = bytes.Clone(tx.Bucket(bSkillState).Get(k))
			out = append(out, s)
			return nil
		})
	})
	return out, err
}

// Skill returns one skill by key.
func (db *DB) Skill(key string) (*record.Skill, error) {
	var out *record.Skill
	err := db.view(func(tx *bolt.Tx) error {
		s, err := getSkill(tx, key)
		if err != nil {
			return err
		}
		if s == nil {
			return fmt.Errorf("skill %q: %w", key, ErrNotFound)
		}
		s.Versions, err = db.versions(tx, key)
		s.State = bytes.Clone(tx.Bucket(bSkillState).Get([]byte(key)))
		out = s
		return err
	})
	if err == nil && out == nil {
		return nil, fmt.Errorf("skill %q: %w", key, ErrNotFound)
	}
	return out, err
}

func (db *DB) versions(tx *bolt.Tx, key string) ([]record.Version, error) {
	var vs []record.Version
	prefix := []byte(key + "\x00")
	c := tx.Bucket(bVersions).Cursor()
	ab := tx.Bucket(bAggregates)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var ver record.Version
		if err := json.Unmarshal(v, &ver); err != nil {
			return nil, err
		}
		if a := ab.Get(aggKey(key, ver.Hash, db.opts.Rubric)); a != nil {
			var st record.Tally
			if err := json.Unmarshal(a, &st); err != nil {
				return nil, err
			}
			st.Fill(&ver, db.opts.Aggregate)
		}
		descriptionOf(tx, key, &ver)
		vs = append(vs, ver)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Seq < vs[j].Seq })
	return vs, withActivation(tx, key, vs)
}

// AggregateState returns the aggregate state of one version under the
// current rubric, for explain.
func (db *DB) AggregateState(skillKey, version string) (*aggregate.State, error) {
	var out *aggregate.State
	err := db.view(func(tx *bolt.Tx) error {
		v := tx.Bucket(bAggregates).Get(aggKey(skillKey, version, db.opts.Rubric))
		if v == nil {
			return nil
		}
		var st record.Tally
		if err := json.Unmarshal(v, &st); err != nil {
			return err
		}
		out = &st.State
		return nil
	})
	return out, err
}

// Quarantine returns up to limit quarantined lines, oldest first.
func (db *DB) Quarantine(limit int) ([]record.QuarantineEntry, error) {
	var out []record.QuarantineEntry
	err := db.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bQuarantine).Cursor()
		for k, v := c.First(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Next() {
			var e record.QuarantineEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// UsedBytes is the size of the pages that hold data: the database's size
// less its free pages. The file's size (Stats.Size) moves in steps
// (bbolt doubles it up to 16 MiB, then grows it by 16 MiB), so a store a
// few percent larger can take a file twice the size; BenchmarkIngest
// reports both.
func (db *DB) UsedBytes() (int64, error) {
	var size int64
	err := db.view(func(tx *bolt.Tx) error {
		size = tx.Size()
		return nil
	})
	return size - int64(db.bolt.Stats().FreeAlloc), err
}

// Stats summarises the database.
func (db *DB) Stats() (Stats, error) {
	st := Stats{Events: map[string]int64{}, SchemaVersion: SchemaVersion}
	err := db.view(func(tx *bolt.Tx) error {
		m := tx.Bucket(bMeta)
		st.Executions = int64(getU64(m.Get(kExecCount)))
		st.Quarantined = int64(getU64(m.Get(kQuarantined)))
		st.QuarantineKept = int(getU64(m.Get(kQuarantineKept)))
		st.Open = tx.Bucket(bOpen).Stats().KeyN
		st.Skills = tx.Bucket(bSkills).Stats().KeyN
		return tx.Bucket(bEvents).ForEach(func(k, v []byte) error {
			st.Events[string(k)] = int64(getU64(v))
			return nil
		})
	})
	if fi, err2 := os.Stat(db.path); err2 == nil {
		st.Size = fi.Size()
	}
	return st, err
}
