package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/aggregate"
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
func (db *DB) Offsets() ([]Offset, error) {
	var out []Offset
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bOffsets).ForEach(func(k, v []byte) error {
			var o Offset
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
func (db *DB) Execution(id string) (*Scored, error) {
	var out *Scored
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
		var s Scored
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
func (db *DB) Executions(f Filter) ([]Scored, error) {
	var out []Scored
	err := db.view(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		next := indexWalk(tx, &f)
		for id := next(); id != nil; id = next() {
			v := ex.Get(id)
			if v == nil {
				return fmt.Errorf("index names missing execution %s", id)
			}
			var s Scored
			if err := decodeExec(v, &s); err != nil {
				return fmt.Errorf("decode execution %s: %w", id, err)
			}
			if !f.match(&s) {
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
func indexWalk(tx *bolt.Tx, f *Filter) func() []byte {
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

func (f *Filter) match(s *Scored) bool {
	if f.MaxSeq > 0 && s.Seq > f.MaxSeq {
		return false
	}
	if f.SkillKey != "" && s.SkillKey != f.SkillKey {
		return false
	}
	if f.Skill != "" && s.Exec.Skill != f.Skill {
		return false
	}
	if f.Version != "" && !strings.HasPrefix(s.Version, f.Version) {
		return false
	}
	if f.Grade != "" && s.Result.Grade != f.Grade {
		return false
	}
	if !f.Since.IsZero() {
		t := execTime(&s.Exec)
		if t.IsZero() {
			t = s.Stored
		}
		if t.Before(f.Since) {
			return false
		}
	}
	return true
}

// Skills returns every skill with its versions (oldest first) and their
// aggregates under the current rubric version.
func (db *DB) Skills() ([]Skill, error) {
	var out []Skill
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bSkills).ForEach(func(k, v []byte) error {
			var s Skill
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
func (db *DB) Skill(key string) (*Skill, error) {
	var out *Skill
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

func (db *DB) versions(tx *bolt.Tx, key string) ([]Version, error) {
	var vs []Version
	prefix := []byte(key + "\x00")
	c := tx.Bucket(bVersions).Cursor()
	ab := tx.Bucket(bAggregates)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var ver Version
		if err := json.Unmarshal(v, &ver); err != nil {
			return nil, err
		}
		if a := ab.Get(aggKey(key, ver.Hash, db.opts.Rubric)); a != nil {
			var st aggState
			if err := json.Unmarshal(a, &st); err != nil {
				return nil, err
			}
			ver.Aggregate = st.State.Aggregate(db.opts.Aggregate)
			if st.Calls > 0 {
				ver.FailRate = float64(st.Failed) / float64(st.Calls)
			}
			ver.Claims, ver.OverClaims = st.Claims, st.OverClaims
			ver.Tokens = st.Tokens
		}
		vs = append(vs, ver)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Seq < vs[j].Seq })
	return vs, nil
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
		var st aggState
		if err := json.Unmarshal(v, &st); err != nil {
			return err
		}
		out = &st.State
		return nil
	})
	return out, err
}

// Quarantine returns up to limit quarantined lines, oldest first.
func (db *DB) Quarantine(limit int) ([]QuarantineEntry, error) {
	var out []QuarantineEntry
	err := db.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bQuarantine).Cursor()
		for k, v := c.First(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Next() {
			var e QuarantineEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// Sessions returns the sessions seen, most recent first.
func (db *DB) Sessions(limit int) ([]sessionRecord, error) {
	var out []sessionRecord
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bSessions).ForEach(func(k, v []byte) error {
			var s sessionRecord
			if err := json.Unmarshal(v, &s); err != nil {
				return err
			}
			out = append(out, s)
			return nil
		})
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Last.After(out[j].Last) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, err
}

// Session is one Claude Code session seen in the spool.
type Session = sessionRecord

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

// PutVersion records a version of a skill's file (idempotent per skill and
// hash: an existing record is returned unchanged, except that content
// becomes known). The skill is created if needed and its current version
// set to hash.
func (db *DB) PutVersion(sk Skill, v Version) (Version, error) {
	var out Version
	defer db.changes.touched(sk.Key)
	err := db.update(func(tx *bolt.Tx) error {
		cur, err := getSkill(tx, sk.Key)
		if err != nil {
			return err
		}
		if cur == nil {
			c := sk
			c.Versions = nil
			cur = &c
		}
		vb := tx.Bucket(bVersions)
		k := versionKey(sk.Key, v.Hash)
		if old := vb.Get(k); old != nil {
			if err := json.Unmarshal(old, &out); err != nil {
				return err
			}
			if !out.ContentKnown && v.ContentKnown {
				out.Content, out.ContentKnown = v.Content, true
				if out.FirstSeen.IsZero() {
					out.FirstSeen = v.FirstSeen
				}
				if err := putJSON(vb, k, out); err != nil {
					return err
				}
			}
		} else {
			cur.VersionCount++
			v.SkillKey, v.Seq = sk.Key, cur.VersionCount
			if v.Parent == "" && cur.Current != v.Hash {
				v.Parent = cur.Current
			}
			if err := putJSON(vb, k, v); err != nil {
				return err
			}
			out = v
		}
		cur.Current = v.Hash
		return putSkill(tx, cur)
	})
	return out, err
}

// Version returns one version record with its content.
func (db *DB) Version(skillKey, hash string) (*Version, error) {
	var out *Version
	err := db.view(func(tx *bolt.Tx) error {
		vs, err := db.versions(tx, skillKey)
		if err != nil {
			return err
		}
		for i := range vs {
			if vs[i].Hash == hash || (len(hash) >= 4 && strings.HasPrefix(vs[i].Hash, hash)) || fmt.Sprintf("v%d", vs[i].Seq) == hash {
				out = &vs[i]
				return nil
			}
		}
		return nil
	})
	if err == nil && out == nil {
		return nil, fmt.Errorf("version %q of %s: %w", hash, skillKey, ErrNotFound)
	}
	return out, err
}

// Versions returns a skill's versions, oldest first.
func (db *DB) Versions(skillKey string) ([]Version, error) {
	var out []Version
	err := db.view(func(tx *bolt.Tx) error {
		var err error
		out, err = db.versions(tx, skillKey)
		return err
	})
	return out, err
}

// Decision is a stored decision: the mutation package owns its payload.
type Decision struct {
	SkillKey string          `json:"skill_key"`
	Seq      uint64          `json:"seq"`
	Time     time.Time       `json:"time"`
	Payload  json.RawMessage `json:"payload"`
}

// PutDecision appends a decision for a skill.
func (db *DB) PutDecision(skillKey string, t time.Time, payload any) error {
	data, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	defer db.changes.touched(skillKey)
	return db.update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bDecisions)
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		return putJSON(b, append([]byte(skillKey+"\x00"), u64(seq)...), Decision{SkillKey: skillKey, Seq: seq, Time: t, Payload: data})
	})
}

// Decisions returns decisions, newest first, for one skill ("" for all).
// For one skill it reads only that skill's newest limit records.
func (db *DB) Decisions(skillKey string, limit int) ([]Decision, error) {
	var out []Decision
	decode := func(k, v []byte) error {
		var d Decision
		if err := json.Unmarshal(v, &d); err != nil {
			return fmt.Errorf("decode decision %q: %w", k, err)
		}
		out = append(out, d)
		return nil
	}
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bDecisions)
		if skillKey == "" {
			return b.ForEach(decode)
		}
		// Keys are skill NUL seq: the skill's newest decision is the last
		// key before skill NUL followed by the largest seq.
		prefix := []byte(skillKey + "\x00")
		c := b.Cursor()
		upper := append(bytes.Clone(prefix), u64(^uint64(0))...)
		k, v := c.Seek(upper)
		if k == nil {
			k, v = c.Last()
		} else if !bytes.Equal(k, upper) {
			k, v = c.Prev()
		}
		for ; k != nil && bytes.HasPrefix(k, prefix) && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			if len(k) != len(prefix)+8 {
				continue // another skill whose key extends this one's (impossible with NUL-free keys)
			}
			if err := decode(k, v); err != nil {
				return err
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Seq > out[j].Seq })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, err
}

// SkillState returns the mutation engine's state blob for a skill (nil
// when none).
func (db *DB) SkillState(skillKey string) ([]byte, error) {
	var out []byte
	err := db.view(func(tx *bolt.Tx) error {
		out = bytes.Clone(tx.Bucket(bSkillState).Get([]byte(skillKey)))
		return nil
	})
	return out, err
}

// PutSkillState stores the mutation engine's state blob for a skill.
func (db *DB) PutSkillState(skillKey string, state []byte) error {
	defer db.changes.touched(skillKey)
	return db.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bSkillState).Put([]byte(skillKey), state)
	})
}
