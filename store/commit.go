package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// Batch is everything one group of spool lines produced.
type Batch struct {
	Offsets    []record.Offset
	OffsetDel  []string
	Executions []record.Scored
	OpenPut    map[string][]byte
	OpenDel    []string
	// Ended are part counts of ended threads (ended.go).
	Ended       map[string]int
	Quarantine  []record.QuarantineEntry
	EventCounts map[string]int64
	// Transcripts are the read positions of session transcripts.
	Transcripts []record.TranscriptOffset
	// ImportKeys and ImportSessions are what an import fed to the
	// pipeline (imported.go).
	ImportKeys     []string
	ImportSessions []string
	// Collisions is set by Commit: executions not stored because another
	// execution already holds their ID. Each is also quarantined (file
	// "(store)", the execution as JSON) so that nothing is lost silently.
	Collisions []CollisionError
}

// Commit stores a batch in one transaction. An execution whose ID is
// already stored is skipped, so a replayed batch never counts twice.
func (db *DB) Commit(b *Batch) error {
	var touched []string
	defer func() { db.changes.touched(touched...) }()
	err := noSpace(db.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		offs := tx.Bucket(bOffsets)
		for _, p := range b.OffsetDel {
			if err := offs.Delete(bkey(p)); err != nil {
				return err
			}
		}
		for _, o := range b.Offsets {
			if err := putJSON(offs, bkey(o.File), o); err != nil {
				return err
			}
		}
		open := tx.Bucket(bOpen)
		for _, k := range b.OpenDel {
			if err := open.Delete(bkey(k)); err != nil {
				return err
			}
		}
		for k, v := range b.OpenPut {
			if err := open.Put(bkey(k), v); err != nil {
				return err
			}
		}
		now := time.Now().UTC()
		tc := &txCache{skills: map[string]*record.Skill{}, sessions: map[string]*record.Session{}, aggs: map[string]*record.Tally{},
			vectors: map[string]bool{}, acts: map[string]*activation.Counts{}}
		b.Collisions = nil
		for i := range b.Executions {
			err := db.putExecution(tx, tc, meta, &b.Executions[i], now)
			var ce *CollisionError
			if errors.As(err, &ce) {
				b.Collisions = append(b.Collisions, *ce)
				b.Quarantine = append(b.Quarantine, record.QuarantineEntry{File: "(store)", Raw: ce.Raw, Reason: ce.Error(), Time: now})
				continue
			}
			if err != nil {
				return err
			}
		}
		for k := range tc.skills {
			touched = append(touched, k)
		}
		if err := tc.flush(tx, meta); err != nil {
			return err
		}
		if err := db.putQuarantine(tx, meta, b.Quarantine); err != nil {
			return err
		}
		if err := putTranscripts(tx, b.Transcripts); err != nil {
			return err
		}
		if err := putEnded(tx, b.Ended); err != nil {
			return err
		}
		if err := putImported(tx, b.ImportKeys, b.ImportSessions); err != nil {
			return err
		}
		return db.putEventCounts(tx.Bucket(bEvents), b.EventCounts)
	}))
	return err
}

// noSpace marks err with ErrNoSpace when the file system said it is full.
func noSpace(err error) error {
	if err != nil && isNoSpace(err) {
		return fmt.Errorf("%w: %w", ErrNoSpace, err)
	}
	return err
}

// txCache holds the records one Commit updates many times (a skill, its
// aggregates, a session), decoded once and written once at the end.
type txCache struct {
	skills   map[string]*record.Skill
	sessions map[string]*record.Session
	aggs     map[string]*record.Tally
	vectors  map[string]bool // the skills whose vectors this commit kept
	acts     map[string]*activation.Counts
	seq      uint64
	count    uint64
	loaded   bool
}

func (tc *txCache) skill(tx *bolt.Tx, key string) (*record.Skill, error) {
	if s, ok := tc.skills[key]; ok {
		return s, nil
	}
	s, err := getSkill(tx, key)
	if err != nil {
		return nil, err
	}
	tc.skills[key] = s
	return s, nil
}

func (tc *txCache) flush(tx *bolt.Tx, meta *bolt.Bucket) error {
	for _, s := range tc.skills {
		if s != nil {
			if err := putSkill(tx, s); err != nil {
				return err
			}
		}
	}
	sb := tx.Bucket(bSessions)
	for id, s := range tc.sessions {
		if err := putJSON(sb, []byte(id), s); err != nil {
			return err
		}
	}
	ab := tx.Bucket(bAggregates)
	for k, a := range tc.aggs {
		if err := putJSON(ab, []byte(k), a); err != nil {
			return err
		}
	}
	if err := tc.putActivations(tx); err != nil {
		return err
	}
	if err := trimVectors(tx, tc.vectors); err != nil {
		return err
	}
	if !tc.loaded {
		return nil
	}
	if err := meta.Put(kExecCount, u64(tc.count)); err != nil {
		return err
	}
	return meta.Put(kSeq, u64(tc.seq))
}

func (db *DB) putExecution(tx *bolt.Tx, tc *txCache, meta *bolt.Bucket, s *record.Scored, now time.Time) error {
	boundExecution(s)
	ex := tx.Bucket(bExec)
	if old := ex.Get([]byte(s.Exec.ID)); old != nil {
		if sameExecution(old, &s.Exec) {
			return nil // already stored: exactly once
		}
		// Another execution holds this ID: never drop it silently.
		return collision(old, s)
	}
	x := &s.Exec
	s.SkillKey = boundPart(x.Key())
	sk, err := tc.skill(tx, s.SkillKey)
	if err != nil {
		return err
	}
	if sk == nil {
		sk = &record.Skill{Key: s.SkillKey, Name: x.Skill, Kind: x.Kind, Project: x.Project, Path: x.SkillPath}
		tc.skills[s.SkillKey] = sk
	}
	s.Version = x.SkillVersion
	if s.Version == "" {
		s.Version = sk.Current // the version in force when it ran
	}
	if s.Version == "" {
		s.Version = "unknown"
	}
	if err := db.ensureVersion(tx, sk, s.Version, time.Time{}); err != nil {
		return err
	}
	if err := putManifest(tx, sk, s.Version, x); err != nil {
		return err
	}
	if x.SkillVersion != "" {
		sk.Current = s.Version
	}
	sk.Executions++
	if t := record.ExecTime(x); t.After(sk.LastSeen) {
		sk.LastSeen = t
	}
	if !tc.loaded {
		tc.seq, tc.count, tc.loaded = getU64(meta.Get(kSeq)), getU64(meta.Get(kExecCount)), true
	}
	tc.seq++
	tc.count++
	seq := tc.seq
	s.Seq, s.Stored = seq, now
	if s.Vector != nil {
		if err := putVector(tx, s); err != nil {
			return err
		}
		tc.vectors[s.SkillKey] = true
	}
	// Keep what explain needs; tool inputs and outputs stay in the spool.
	stored := *s
	stored.Exec.Calls = make([]execution.ToolCall, len(x.Calls))
	for i, c := range x.Calls {
		c.Response = ""
		stored.Exec.Calls[i] = c
	}
	stored.Exec.Instructions = nil // the version's content holds them
	if err := db.putExec(ex, &stored); err != nil {
		return err
	}
	if err := tx.Bucket(bBySeq).Put(u64(^seq), []byte(x.ID)); err != nil {
		return err
	}
	if err := tx.Bucket(bByVersion).Put(versionIndexKey(s.SkillKey, s.Version, seq), []byte(x.ID)); err != nil {
		return err
	}
	if err := tc.countActivation(tx, s.SkillKey, s.Version, x); err != nil {
		return err
	}
	if s.Result.Scored {
		ak := aggKey(s.SkillKey, s.Version, s.Result.RubricVersion)
		st := tc.aggs[string(ak)]
		if st == nil {
			st = &record.Tally{}
			if v := tx.Bucket(bAggregates).Get(ak); v != nil {
				if err := json.Unmarshal(v, st); err != nil {
					return fmt.Errorf("decode aggregate %q: %w", ak, err)
				}
			}
			tc.aggs[string(ak)] = st
		}
		st.Add(s, db.opts.Aggregate)
	}
	return db.touchSession(tx, tc, x)
}

func (db *DB) putQuarantine(tx *bolt.Tx, meta *bolt.Bucket, q []record.QuarantineEntry) error {
	if len(q) == 0 {
		return nil
	}
	qb := tx.Bucket(bQuarantine)
	total := getU64(meta.Get(kQuarantined))
	kept := getU64(meta.Get(kQuarantineKept))
	for _, e := range q {
		total++
		if kept >= uint64(db.opts.QuarantineMax) {
			continue // full: counted, not kept (docs/store.md)
		}
		kept++
		e.Seq = total
		if err := putJSON(qb, u64(total), e); err != nil {
			return err
		}
	}
	if err := meta.Put(kQuarantineKept, u64(kept)); err != nil {
		return err
	}
	return meta.Put(kQuarantined, u64(total))
}

func (db *DB) touchSession(tx *bolt.Tx, tc *txCache, x *execution.Execution) error {
	s := tc.sessions[x.SessionID]
	if s == nil {
		s = &record.Session{}
		if v := tx.Bucket(bSessions).Get([]byte(x.SessionID)); v != nil {
			if err := json.Unmarshal(v, s); err != nil {
				return err
			}
		}
		tc.sessions[x.SessionID] = s
	}
	s.ID = x.SessionID
	if s.Project == "" {
		s.Project = x.Project
	}
	if !x.StartedAt.IsZero() && (s.First.IsZero() || x.StartedAt.Before(s.First)) {
		s.First = x.StartedAt
	}
	if t := record.ExecTime(x); t.After(s.Last) {
		s.Last = t
	}
	s.Executions++
	found := false
	for _, k := range s.Skills {
		if k == x.Skill {
			found = true
		}
	}
	if !found && len(s.Skills) < 50 {
		s.Skills = append(s.Skills, x.Skill)
	}
	return nil
}

// ensureVersion creates the version record of hash if it has none yet
// (content unknown, source "observed").
func (db *DB) ensureVersion(tx *bolt.Tx, sk *record.Skill, hash string, seen time.Time) error {
	vb := tx.Bucket(bVersions)
	k := versionKey(sk.Key, hash)
	if vb.Get(k) != nil {
		return nil
	}
	sk.VersionCount++
	v := record.Version{SkillKey: sk.Key, Hash: hash, Seq: sk.VersionCount, Source: "observed", FirstSeen: seen, Parent: sk.Current}
	return putJSON(vb, k, v)
}
