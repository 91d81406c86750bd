// Package store is sepad's database: one bbolt file, $SEPA_HOME/sepa.db,
// with the schema documented in docs/store.md. It is the only package that
// imports bbolt. Writes come in batches (Commit: one transaction per batch
// of spool lines, so offsets and what they produced land together); reads
// use short transactions and return copies, never live bbolt memory.
package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/tracevalue"
)

// SchemaVersion is the version of the layout in docs/store.md.
const SchemaVersion = 1

// Errors callers branch on.
var (
	// ErrLocked: another process (normally the daemon) holds the database.
	ErrLocked = errors.New("database is locked by another process: the sepad daemon is probably running; query it through its socket (the CLI does this by itself), or stop it first")
	// ErrSchemaNewer: the file was written by a newer sepad.
	ErrSchemaNewer = errors.New("database schema is newer than this sepad")
	// ErrNotFound: no such record.
	ErrNotFound = errors.New("not found")
	// ErrNoSpace: a commit failed because the file system holding the
	// database is full (or the user's quota is spent). Nothing of the
	// batch was written; the same batch can be committed again once there
	// is room (the collector waits and retries).
	ErrNoSpace = errors.New("no space left for the database")
)

// Options configure Open.
type Options struct {
	// ReadOnly opens with a shared lock (queries while the daemon is down).
	ReadOnly bool
	// LockTimeout bounds the wait for the file lock (default 1s).
	LockTimeout time.Duration
	// QuarantineMax bounds the quarantined lines kept (default 100,000);
	// beyond it lines are only counted.
	QuarantineMax int
	// Aggregate configures the per-version aggregates.
	Aggregate aggregate.Options
	// Rubric is the rubric version whose aggregates the queries read
	// (fitness.RubricFor of the configured weights; default
	// fitness.RubricVersion).
	Rubric string
}

// Offset is the committed read position of one followed file.
type Offset struct {
	File        string `json:"file"`
	Offset      int64  `json:"offset"`
	Dev         uint64 `json:"dev"`
	Ino         uint64 `json:"ino"`
	Fingerprint string `json:"fingerprint"`
	Size        int64  `json:"size"`
	Lines       int64  `json:"lines"`
}

// Scored is an execution with its score, as stored.
type Scored struct {
	Exec   execution.Execution `json:"execution"`
	Result fitness.Result      `json:"result"`
	// Assigned by Commit:
	SkillKey string    `json:"skill_key"`
	Version  string    `json:"version"`
	Seq      uint64    `json:"seq"`
	Stored   time.Time `json:"stored"`
	// Value is KnowledgePulse's value score of the execution, measured
	// against its skill's previous executions (package tracevalue), and
	// Integrity what its final answer claims against what its calls show
	// (package integrity): computed by Commit, recorded beside the score,
	// never part of it.
	Value     *tracevalue.Value `json:"value,omitempty"`
	Integrity *integrity.Report `json:"integrity,omitempty"`
}

// QuarantineEntry is a line that could not be used.
type QuarantineEntry struct {
	Seq    uint64    `json:"seq"`
	File   string    `json:"file"`
	Offset int64     `json:"offset"`
	Raw    []byte    `json:"raw"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
}

// Batch is everything one group of spool lines produced.
type Batch struct {
	Offsets     []Offset
	OffsetDel   []string
	Executions  []Scored
	OpenPut     map[string][]byte
	OpenDel     []string
	Quarantine  []QuarantineEntry
	EventCounts map[string]int64
	// Transcripts are the read positions of session transcripts.
	Transcripts []TranscriptOffset
	// ImportKeys and ImportSessions are what an import fed to the
	// pipeline (imported.go).
	ImportKeys     []string
	ImportSessions []string
	// Collisions is set by Commit: executions not stored because another
	// execution already holds their ID. Each is also quarantined (file
	// "(store)", the execution as JSON) so that nothing is lost silently.
	Collisions []CollisionError
}

// Skill is one prompt file (or project-qualified name) being measured.
type Skill struct {
	Key     string `json:"key"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Project string `json:"project,omitempty"`
	Path    string `json:"path,omitempty"`
	// Current is the hash of the version in force (last seen or attributed).
	Current    string    `json:"current,omitempty"`
	Executions int       `json:"executions"`
	LastSeen   time.Time `json:"last_seen,omitempty"`
	// VersionCount numbers versions v1, v2, … in order of first sight.
	VersionCount int       `json:"version_count"`
	Versions     []Version `json:"versions,omitempty"`
	// State is the mutation engine's state blob (filled by Skill and
	// Skills; not stored in the skill record).
	State []byte `json:"-"`
}

// Version is one content of a skill's prompt file.
type Version struct {
	SkillKey     string    `json:"skill_key"`
	Hash         string    `json:"hash"`
	Seq          int       `json:"seq"`
	ContentKnown bool      `json:"content_known"`
	Content      []byte    `json:"content,omitempty"`
	Parent       string    `json:"parent,omitempty"`
	FirstSeen    time.Time `json:"first_seen"`
	// Source: edit, proposal, rollback or observed (attributed by an
	// execution before its content was seen).
	Source string `json:"source"`
	// Aggregate under the current rubric (filled by Skills and Versions).
	Aggregate aggregate.Aggregate `json:"aggregate"`
	// FailRate is the fraction of tool calls that failed, over all the
	// version's executions.
	FailRate float64 `json:"fail_rate"`
	// Claims counts the version's scored executions whose answer claims
	// something the calls can tell, and OverClaims those whose answer
	// claims more than the calls show (package integrity), of
	// Aggregate.N.
	Claims     int `json:"claims"`
	OverClaims int `json:"over_claims"`
	// Tokens are the version's token and cost sums (filled like
	// Aggregate; nil when no transcript was read).
	Tokens *Tokens `json:"tokens,omitempty"`
}

// Stats summarise the database.
type Stats struct {
	Executions     int64            `json:"executions"`
	Open           int              `json:"open_executions"`
	Quarantined    int64            `json:"quarantined"`
	QuarantineKept int              `json:"quarantine_kept"`
	Events         map[string]int64 `json:"events"`
	Skills         int              `json:"skills"`
	Size           int64            `json:"db_bytes"`
	SchemaVersion  int              `json:"schema_version"`
}

// Filter selects executions.
type Filter struct {
	SkillKey string
	Skill    string // name, any project
	Version  string // hash prefix
	Grade    fitness.Grade
	Since    time.Time
	// MaxSeq, when set, skips executions committed after it (a replayable
	// view "as of" one execution).
	MaxSeq uint64
	Limit  int
}

// Bucket names (docs/store.md).
var (
	bMeta       = []byte("meta")
	bOffsets    = []byte("offsets")
	bOpen       = []byte("open")
	bExec       = []byte("executions")
	bBySeq      = []byte("by_seq")
	bByVersion  = []byte("by_version")
	bSkills     = []byte("skills")
	bVersions   = []byte("versions")
	bAggregates = []byte("aggregates")
	bQuarantine = []byte("quarantine")
	bEvents     = []byte("event_counts")
	bDecisions  = []byte("decisions")
	bSkillState = []byte("skill_state")
	bSessions   = []byte("sessions")
	allBuckets  = [][]byte{bMeta, bOffsets, bOpen, bExec, bBySeq, bByVersion, bSkills, bVersions, bAggregates,
		bQuarantine, bEvents, bDecisions, bSkillState, bSessions}
)

// Meta keys.
var (
	kSchema      = []byte("schema_version")
	kSeq         = []byte("seq")
	kExecCount   = []byte("executions")
	kQuarantined = []byte("quarantined")
	// kQuarantineKept counts the entries in the quarantine bucket.
	kQuarantineKept = []byte("quarantine_kept")
)

// DB is an open sepad database.
type DB struct {
	bolt *bolt.DB
	path string
	opts Options
	// values are the skills' novelty caches (value.go).
	values *valueCaches
	// lite remembers the versions listings decoded (memo.go).
	lite *liteMemo
	// changes records the skills each write touched (changes.go).
	changes *changes
	// enc deflates execution records (codec.go), in write transactions.
	enc execCodec
	// gen is the ID of the last committed write transaction (TxID).
	gen *atomic.Uint64
}

// Open opens (creating if needed, unless read-only) the database at path.
func Open(path string, o Options) (*DB, error) {
	if o.LockTimeout <= 0 {
		o.LockTimeout = time.Second
	}
	if o.QuarantineMax <= 0 {
		o.QuarantineMax = 100_000
	}
	if len(o.Aggregate.Weights) == 0 {
		o.Aggregate = aggregate.DefaultOptions()
	}
	if o.Rubric == "" {
		o.Rubric = fitness.RubricVersion
	}
	if o.ReadOnly {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("open store %s: %w (has the daemon run yet?)", path, err)
		}
		if fi.Size() == 0 {
			// bbolt would try to initialise it, and fail on the read-only
			// descriptor with "bad file descriptor".
			return nil, fmt.Errorf("open store %s: empty file, never initialised: start the daemon once (sepad run)", path)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockTimeout, ReadOnly: o.ReadOnly, NoFreelistSync: true})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("open store %s: %w", path, ErrLocked)
		}
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	db := &DB{bolt: bdb, path: path, opts: o, values: &valueCaches{}, lite: &liteMemo{},
		changes: &changes{mark: 1, all: 1}, gen: new(atomic.Uint64)}
	if err := db.init(); err != nil {
		bdb.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := bdb.View(func(tx *bolt.Tx) error { db.gen.Store(uint64(max(tx.ID(), 0))); return nil }); err != nil {
		bdb.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return db, nil
}

// update runs fn in a write transaction and, once it committed, makes its
// ID the store's generation (TxID). Every write of the store goes through
// it.
func (db *DB) update(fn func(tx *bolt.Tx) error) error {
	var id int
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		id = tx.ID()
		return fn(tx)
	})
	if err == nil {
		db.gen.Store(uint64(max(id, 0)))
	}
	return err
}

// migrations[n] upgrades a schema n database to n+1.
var migrations = map[int]func(tx *bolt.Tx) error{}

func (db *DB) init() error {
	if db.opts.ReadOnly {
		return db.bolt.View(func(tx *bolt.Tx) error {
			m := tx.Bucket(bMeta)
			if m == nil {
				return nil // empty file: reads find nothing
			}
			if err := checkSchema(m); err != nil {
				return err
			}
			// A reader cannot migrate: an older or incomplete layout would
			// leave buckets the reads expect missing.
			n, _ := strconv.Atoi(string(m.Get(kSchema)))
			for _, b := range allBuckets {
				if n < SchemaVersion || tx.Bucket(b) == nil {
					return fmt.Errorf("database schema v%d is older than this sepad's v%d (or incomplete): start the daemon once (sepad run) to migrate it", n, SchemaVersion)
				}
			}
			return nil
		})
	}
	return db.update(func(tx *bolt.Tx) error {
		m, err := tx.CreateBucketIfNotExists(bMeta)
		if err != nil {
			return err
		}
		if v := m.Get(kSchema); v != nil {
			n, _ := strconv.Atoi(string(v))
			if n > SchemaVersion {
				return fmt.Errorf("%w: file has v%d, this sepad knows v%d: upgrade sepad", ErrSchemaNewer, n, SchemaVersion)
			}
			for ; n < SchemaVersion; n++ {
				if mig := migrations[n]; mig != nil {
					if err := mig(tx); err != nil {
						return fmt.Errorf("migrate schema v%d to v%d: %w", n, n+1, err)
					}
				}
			}
		}
		for _, b := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return m.Put(kSchema, []byte(strconv.Itoa(SchemaVersion)))
	})
}

func checkSchema(m *bolt.Bucket) error {
	if v := m.Get(kSchema); v != nil {
		if n, _ := strconv.Atoi(string(v)); n > SchemaVersion {
			return fmt.Errorf("%w: file has v%d, this sepad knows v%d: upgrade sepad", ErrSchemaNewer, n, SchemaVersion)
		}
	}
	return nil
}

// Close closes the database.
func (db *DB) Close() error { return db.bolt.Close() }

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Rubric is the rubric version whose aggregates the queries read.
func (db *DB) Rubric() string { return db.opts.Rubric }

// AggregateOptions are the options the aggregates are kept with.
func (db *DB) AggregateOptions() aggregate.Options { return db.opts.Aggregate }

// Commit stores a batch in one transaction. An execution whose ID is
// already stored is skipped, so a replayed batch never counts twice.
func (db *DB) Commit(b *Batch) error {
	var values map[string]*tracevalue.Cache
	var touched []string
	defer func() { db.changes.touched(touched...) }()
	err := noSpace(db.update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		offs := tx.Bucket(bOffsets)
		for _, p := range b.OffsetDel {
			if err := offs.Delete([]byte(p)); err != nil {
				return err
			}
		}
		for _, o := range b.Offsets {
			if err := putJSON(offs, []byte(o.File), o); err != nil {
				return err
			}
		}
		open := tx.Bucket(bOpen)
		for _, k := range b.OpenDel {
			if err := open.Delete([]byte(k)); err != nil {
				return err
			}
		}
		for k, v := range b.OpenPut {
			if err := open.Put([]byte(k), v); err != nil {
				return err
			}
		}
		now := time.Now().UTC()
		tc := &txCache{skills: map[string]*Skill{}, sessions: map[string]*sessionRecord{}, aggs: map[string]*aggState{},
			values: map[string]*tracevalue.Cache{}}
		values = tc.values
		b.Collisions = nil
		for i := range b.Executions {
			err := db.putExecution(tx, tc, meta, &b.Executions[i], now)
			var ce *CollisionError
			if errors.As(err, &ce) {
				b.Collisions = append(b.Collisions, *ce)
				b.Quarantine = append(b.Quarantine, QuarantineEntry{File: "(store)", Raw: ce.Raw, Reason: ce.Error(), Time: now})
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
		if err := putImported(tx, b.ImportKeys, b.ImportSessions); err != nil {
			return err
		}
		ev := tx.Bucket(bEvents)
		for k, n := range b.EventCounts {
			if err := ev.Put([]byte(k), u64(getU64(ev.Get([]byte(k)))+uint64(n))); err != nil {
				return err
			}
		}
		return nil
	}))
	if err == nil {
		db.values.install(values)
	}
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
	skills   map[string]*Skill
	sessions map[string]*sessionRecord
	aggs     map[string]*aggState
	values   map[string]*tracevalue.Cache
	seq      uint64
	count    uint64
	loaded   bool
}

func (tc *txCache) skill(tx *bolt.Tx, key string) (*Skill, error) {
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
	if !tc.loaded {
		return nil
	}
	if err := meta.Put(kExecCount, u64(tc.count)); err != nil {
		return err
	}
	return meta.Put(kSeq, u64(tc.seq))
}

func (db *DB) putExecution(tx *bolt.Tx, tc *txCache, meta *bolt.Bucket, s *Scored, now time.Time) error {
	ex := tx.Bucket(bExec)
	if old := ex.Get([]byte(s.Exec.ID)); old != nil {
		if sameExecution(old, &s.Exec) {
			return nil // already stored: exactly once
		}
		// Another execution holds this ID: never drop it silently.
		return collision(old, s)
	}
	x := &s.Exec
	s.SkillKey = x.Key()
	sk, err := tc.skill(tx, s.SkillKey)
	if err != nil {
		return err
	}
	if sk == nil {
		sk = &Skill{Key: s.SkillKey, Name: x.Skill, Kind: x.Kind, Project: x.Project, Path: x.SkillPath}
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
	if t := execTime(x); t.After(sk.LastSeen) {
		sk.LastSeen = t
	}
	if !tc.loaded {
		tc.seq, tc.count, tc.loaded = getU64(meta.Get(kSeq)), getU64(meta.Get(kExecCount)), true
	}
	tc.seq++
	tc.count++
	seq := tc.seq
	s.Seq, s.Stored = seq, now
	if s.Integrity == nil {
		s.Integrity = integrity.Check(x)
	}
	if err := db.putValue(tx, tc, s); err != nil {
		return err
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
	if s.Result.Scored {
		ak := aggKey(s.SkillKey, s.Version, s.Result.RubricVersion)
		st := tc.aggs[string(ak)]
		if st == nil {
			st = &aggState{}
			if v := tx.Bucket(bAggregates).Get(ak); v != nil {
				if err := json.Unmarshal(v, st); err != nil {
					return fmt.Errorf("decode aggregate %q: %w", ak, err)
				}
			}
			tc.aggs[string(ak)] = st
		}
		st.State.Add(s.Result.Score, x.ID, db.opts.Aggregate)
		st.Calls += len(x.Calls)
		st.Failed += x.Failures()
		st.Claims, st.OverClaims = st.Claims+claims(s.Integrity), st.OverClaims+overClaims(s.Integrity)
		st.addUsage(x.Usage)
	}
	return db.touchSession(tx, tc, x)
}

// aggState is the stored aggregate of one (skill, version, rubric).
type aggState struct {
	State  aggregate.State `json:"state"`
	Calls  int             `json:"calls"`
	Failed int             `json:"failed"`
	Tokens *Tokens         `json:"tokens,omitempty"`
	// Claims and OverClaims count integrity reports (Version).
	Claims     int `json:"claims,omitempty"`
	OverClaims int `json:"over_claims,omitempty"`
}

// claims is 1 when r holds an observation the calls can tell.
func claims(r *integrity.Report) int {
	if r == nil {
		return 0
	}
	for _, o := range r.Observations {
		if o.Comparable() {
			return 1
		}
	}
	return 0
}

func overClaims(r *integrity.Report) int {
	if r != nil && r.OverClaim {
		return 1
	}
	return 0
}

func execTime(x *execution.Execution) time.Time {
	if !x.EndedAt.IsZero() {
		return x.EndedAt
	}
	return x.StartedAt
}

func (db *DB) putQuarantine(tx *bolt.Tx, meta *bolt.Bucket, q []QuarantineEntry) error {
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

type sessionRecord struct {
	ID         string    `json:"id"`
	Project    string    `json:"project,omitempty"`
	First      time.Time `json:"first,omitempty"`
	Last       time.Time `json:"last,omitempty"`
	Executions int       `json:"executions"`
	Skills     []string  `json:"skills,omitempty"`
}

func (db *DB) touchSession(tx *bolt.Tx, tc *txCache, x *execution.Execution) error {
	s := tc.sessions[x.SessionID]
	if s == nil {
		s = &sessionRecord{}
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
	if t := execTime(x); t.After(s.Last) {
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
func (db *DB) ensureVersion(tx *bolt.Tx, sk *Skill, hash string, seen time.Time) error {
	vb := tx.Bucket(bVersions)
	k := versionKey(sk.Key, hash)
	if vb.Get(k) != nil {
		return nil
	}
	sk.VersionCount++
	v := Version{SkillKey: sk.Key, Hash: hash, Seq: sk.VersionCount, Source: "observed", FirstSeen: seen, Parent: sk.Current}
	return putJSON(vb, k, v)
}

// keys

func versionKey(skill, hash string) []byte { return []byte(skill + "\x00" + hash) }

func aggKey(skill, version, rubric string) []byte {
	return []byte(skill + "\x00" + version + "\x00" + rubric)
}

func versionIndexKey(skill, version string, seq uint64) []byte {
	k := []byte(skill + "\x00" + version + "\x00")
	return append(k, u64(^seq)...)
}

func u64(n uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, n)
	return b
}

func getU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func putJSON(b *bolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", k, err)
	}
	return b.Put(k, data)
}

func getSkill(tx *bolt.Tx, key string) (*Skill, error) {
	v := tx.Bucket(bSkills).Get([]byte(key))
	if v == nil {
		return nil, nil
	}
	var s Skill
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("decode skill %q: %w", key, err)
	}
	return &s, nil
}

func putSkill(tx *bolt.Tx, s *Skill) error {
	c := *s
	c.Versions, c.State = nil, nil
	return putJSON(tx.Bucket(bSkills), []byte(s.Key), c)
}
