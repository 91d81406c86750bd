package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/tracevalue"
)

// Read helpers for the query layer (query/, api/). They only read, and they
// keep every bbolt transaction short: a long read transaction pins pages
// (the file grows) and delays a commit that has to remap the file, so scans
// read in chunks and callers do their work between transactions.

// TxID returns the ID of the last committed write transaction. It changes
// whenever anything is written, so a reader can keep what it computed from
// the database until it does (the API's cache).
func (db *DB) TxID() (uint64, error) {
	// Kept in memory, not read from a transaction: beginning one waits
	// while a write grows the file (bbolt remaps it), up to tens of
	// milliseconds, and every cached answer asks. This process is the
	// only writer while it has the file open (bbolt's lock), and each of
	// its writes sets it (update).
	return db.gen.Load(), nil
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
// aggregates come from one snapshot), with the mutation engine's state
// (Skill.State) read in the same snapshot. Versions come without their content
// (Version reads it): listing grades never decodes prompt files.
func (db *DB) SkillsByKey(keys []string) ([]record.Skill, error) {
	out := make([]record.Skill, 0, len(keys))
	err := db.view(func(tx *bolt.Tx) error {
		for _, k := range keys {
			s, err := getSkill(tx, k)
			if err != nil {
				return err
			}
			if s == nil {
				continue
			}
			if s.Versions, err = db.versionsLite(tx, k); err != nil {
				return err
			}
			s.State = bytes.Clone(tx.Bucket(bSkillState).Get([]byte(k)))
			out = append(out, *s)
		}
		return nil
	})
	return out, err
}

// scoredLite is a stored record.Scored decoded for a listing: without the final
// output, the prompt and the signals' breakdown (Execution returns them).
type scoredLite struct {
	Exec struct {
		execution.Execution
		Prompt skipJSON `json:"prompt"`
		Output skipJSON `json:"output"`
	} `json:"execution"`
	Result struct {
		fitness.Result
		Signals skipJSON `json:"signals"`
	} `json:"result"`
	SkillKey  string            `json:"skill_key"`
	Version   string            `json:"version"`
	Seq       uint64            `json:"seq"`
	Stored    time.Time         `json:"stored"`
	Value     *tracevalue.Value `json:"value"`
	Integrity *integrity.Report `json:"integrity"`
}

// SkillList returns every skill record, without versions, in key order.
func (db *DB) SkillList() ([]record.Skill, error) {
	var out []record.Skill
	err := db.view(func(tx *bolt.Tx) error {
		return tx.Bucket(bSkills).ForEach(func(k, v []byte) error {
			var s record.Skill
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
func (db *DB) QuarantineNewest(limit int) ([]record.QuarantineEntry, error) {
	var out []record.QuarantineEntry
	err := db.view(func(tx *bolt.Tx) error {
		c := tx.Bucket(bQuarantine).Cursor()
		for k, v := c.Last(); k != nil && (limit <= 0 || len(out) < limit); k, v = c.Prev() {
			var e record.QuarantineEntry
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("decode quarantined line %x: %w", k, err)
			}
			out = append(out, e)
		}
		return nil
	})
	return out, err
}

// skipJSON decodes nothing: a field of this type shadows a field of an
// embedded struct that a reader does not need, so it is scanned but never
// allocated.
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

// versionNoContent is a stored Version decoded without its content.
type versionNoContent struct {
	record.Version
	Content skipJSON `json:"content"`
}

// tallyNoIDs is a stored record.Tally decoded without the execution IDs
// of its window (only explain needs them): its State shadows the Tally's.
type tallyNoIDs struct {
	record.Tally
	State struct {
		aggregate.State
		IDs skipJSON `json:"ids"`
	} `json:"state"`
}

// versionsLite is versions without contents and window IDs: the same
// records and aggregates (TestSkillsByKeyMatchesSkills keeps them in
// step).
func (db *DB) versionsLite(tx *bolt.Tx, key string) ([]record.Version, error) {
	var vs []record.Version
	prefix := []byte(key + "\x00")
	c := tx.Bucket(bVersions).Cursor()
	ab := tx.Bucket(bAggregates)
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		// The version's key ends with its hash (skill\x00hash), which
		// names its aggregate.
		hash := k[len(prefix):]
		ver, err := db.versionLite(k, v, ab.Get(aggKey(key, string(hash), db.opts.Rubric)), db.opts.Aggregate)
		if err != nil {
			return nil, err
		}
		vs = append(vs, ver)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i].Seq < vs[j].Seq })
	return vs, withActivation(tx, key, vs)
}

// VersionSeqs returns the sequence number of each version of a skill, by
// hash (a listing's version column), reading no content or aggregate.
func (db *DB) VersionSeqs(skillKey string) (map[string]int, error) {
	out := map[string]int{}
	err := db.view(func(tx *bolt.Tx) error {
		prefix := []byte(skillKey + "\x00")
		c := tx.Bucket(bVersions).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var ver struct {
				Hash string `json:"hash"`
				Seq  int    `json:"seq"`
			}
			if err := json.Unmarshal(v, &ver); err != nil {
				return fmt.Errorf("decode version %q: %w", k, err)
			}
			out[ver.Hash] = ver.Seq
		}
		return nil
	})
	return out, err
}

// RecentSessions returns the limit sessions with the latest activity, most
// recent first (all when limit <= 0): every record's time is read, only the
// kept ones are decoded whole.
func (db *DB) RecentSessions(limit int) ([]record.Session, error) {
	type recent struct {
		key  []byte
		last time.Time
	}
	var all []recent
	var out []record.Session
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSessions)
		err := b.ForEach(func(k, v []byte) error {
			var r struct {
				Last time.Time `json:"last"`
			}
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("decode session %q: %w", k, err)
			}
			all = append(all, recent{key: k, last: r.Last})
			return nil
		})
		if err != nil {
			return err
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].last.After(all[j].last) })
		if limit > 0 && len(all) > limit {
			all = all[:limit]
		}
		for _, r := range all {
			var s record.Session
			if err := json.Unmarshal(b.Get(r.key), &s); err != nil {
				return fmt.Errorf("decode session %q: %w", r.key, err)
			}
			out = append(out, s)
		}
		return nil
	})
	return out, err
}

// WalkExecutionIDs calls fn with the IDs and commit sequence numbers of
// stored executions, newest first, reading only the index (no record is
// decoded): of one version when skillKey and version are set, else all.
// It reads in transactions of want IDs, then four times more each, up to
// 4096, and calls fn between them, never inside one.
func (db *DB) WalkExecutionIDs(skillKey, version string, want int, fn func(id string, seq uint64) bool) error {
	index, prefix := bBySeq, []byte(nil)
	if skillKey != "" && version != "" {
		index, prefix = bByVersion, []byte(skillKey+"\x00"+version+"\x00")
	}
	type entry struct {
		id  string
		seq uint64
	}
	var after []byte
	for chunkMax := min(max(want, 1), 4096); ; chunkMax = min(chunkMax*4, 4096) {
		var chunk []entry
		var last []byte
		err := db.view(func(tx *bolt.Tx) error {
			c := tx.Bucket(index).Cursor()
			k, id := resume(c, after, prefix)
			for ; k != nil && len(chunk) < chunkMax; k, id = c.Next() {
				if prefix != nil && !bytes.HasPrefix(k, prefix) {
					break
				}
				if len(k) < 8 {
					return fmt.Errorf("malformed index key %q", k)
				}
				chunk = append(chunk, entry{string(id), ^getU64(k[len(k)-8:])})
				last = k
			}
			last = bytes.Clone(last)
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range chunk {
			if !fn(e.id, e.seq) {
				return nil
			}
		}
		if len(chunk) < chunkMax {
			return nil
		}
		after = last
	}
}

// ExecutionsLite returns the executions with these IDs, in that order,
// decoded for a listing (without Exec.Output, Exec.Prompt and
// Result.Signals: a listing shows none of them; Execution has them), read
// in one transaction; unknown IDs are skipped.
func (db *DB) ExecutionsLite(ids []string) ([]record.Scored, error) {
	out := make([]record.Scored, 0, len(ids))
	err := db.view(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		for _, id := range ids {
			v := ex.Get([]byte(id))
			if v == nil {
				continue
			}
			var l scoredLite
			if err := decodeExec(v, &l); err != nil {
				return fmt.Errorf("decode execution %s: %w", id, err)
			}
			out = append(out, record.Scored{Exec: l.Exec.Execution, Result: l.Result.Result,
				SkillKey: l.SkillKey, Version: l.Version, Seq: l.Seq, Stored: l.Stored, Value: l.Value, Integrity: l.Integrity})
		}
		return nil
	})
	return out, err
}

// ExecScore is an execution's score alone (ExecutionScores).
type ExecScore struct {
	ID     string
	Scored bool
	Score  float64
}

// ExecutionScores returns the scores of the executions with these IDs, in
// that order, read in one transaction; unknown IDs are skipped. Nothing
// else of the records is decoded into values (a trend's points).
func (db *DB) ExecutionScores(ids []string) ([]ExecScore, error) {
	out := make([]ExecScore, 0, len(ids))
	err := db.view(func(tx *bolt.Tx) error {
		ex := tx.Bucket(bExec)
		for _, id := range ids {
			v := ex.Get([]byte(id))
			if v == nil {
				continue
			}
			var r struct {
				Result struct {
					Scored bool    `json:"scored"`
					Score  float64 `json:"score"`
				} `json:"result"`
			}
			if err := decodeExec(v, &r); err != nil {
				return fmt.Errorf("decode execution %s: %w", id, err)
			}
			out = append(out, ExecScore{ID: id, Scored: r.Result.Scored, Score: r.Result.Score})
		}
		return nil
	})
	return out, err
}

// resume positions c for a chunked index walk: just past after (the last
// key of the previous chunk) when set, else at prefix, else at the start.
// Chunks read in separate transactions, so a walk never holds one long.
func resume(c *bolt.Cursor, after, prefix []byte) (k, v []byte) {
	switch {
	case after != nil:
		k, v = c.Seek(after)
		if k != nil && bytes.Equal(k, after) {
			k, v = c.Next()
		}
		return k, v
	case prefix != nil:
		return c.Seek(prefix)
	default:
		return c.First()
	}
}
