package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/record"
)

// PutVersion records a version of a skill's file (idempotent per skill and
// hash: an existing record is returned unchanged, except that content
// becomes known). The skill is created if needed and its current version
// set to hash.
func (db *DB) PutVersion(sk record.Skill, v record.Version) (record.Version, error) {
	var out record.Version
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
				out.Description = activation.DescriptionHash(v.Content)
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
			v.Description, v.Activation = "", nil
			if v.ContentKnown {
				v.Description = activation.DescriptionHash(v.Content)
			}
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
func (db *DB) Version(skillKey, hash string) (*record.Version, error) {
	var out *record.Version
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
func (db *DB) Versions(skillKey string) ([]record.Version, error) {
	var out []record.Version
	err := db.view(func(tx *bolt.Tx) error {
		var err error
		out, err = db.versions(tx, skillKey)
		return err
	})
	return out, err
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
		return putJSON(b, append([]byte(skillKey+"\x00"), u64(seq)...), record.Decision{SkillKey: skillKey, Seq: seq, Time: t, Payload: data})
	})
}

// Decisions returns decisions, newest first, for one skill ("" for all).
// For one skill it reads only that skill's newest limit records.
func (db *DB) Decisions(skillKey string, limit int) ([]record.Decision, error) {
	var out []record.Decision
	decode := func(k, v []byte) error {
		var d record.Decision
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
