// Package store is sepad's database: one bbolt file, $SEPA_HOME/sepa.db,
// with the schema documented in docs/store.md. It is the only package that
// imports bbolt. Writes come in batches (Commit: one transaction per batch
// of spool lines, so offsets and what they produced land together); reads
// use short transactions and return copies, never live bbolt memory.
package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/fitness"
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
	// is room (the collector waits and retries). Open returns it too when
	// a new database cannot be created for lack of space (the daemon
	// waits and retries; a half-written new file is removed).
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
	// EventNames bounds the distinct unknown hook event names counted in
	// event_counts (default DefaultEventNames); beyond it they count as
	// OtherEvents (keys.go).
	EventNames int
	// Aggregate configures the per-version aggregates.
	Aggregate aggregate.Options
	// Rubric is the rubric version whose aggregates the queries read
	// (fitness.RubricFor of the configured weights; default
	// fitness.RubricVersion).
	Rubric string
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

// PageSize is the bbolt page size of a database sepad creates. bbolt
// keeps a map entry for every live page a commit took from its freelist
// (freelist.allocs, for rollbacks) and never shrinks it, so its memory
// follows the number of pages in the file: 16 KiB pages need a quarter of
// the entries of the usual 4 KiB, which took a third to a half off the
// daemon's memory growth in 30-minute soaks, for 2.2-2.6 times the bytes
// written (docs/store.md; scripts/soak.sh). A file keeps the page size it
// was created with: bbolt reads it from the file's meta page, so older
// 4 KiB databases open unchanged.
const PageSize = 16 << 10

// DB is an open sepad database.
type DB struct {
	bolt *bolt.DB
	path string
	opts Options
	// forgets counts the skills forgotten (novelty.go).
	forgets *atomic.Uint64
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
	if o.EventNames <= 0 {
		o.EventNames = DefaultEventNames
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
		return nil, fmt.Errorf("open store %s: %w", path, noSpace(err))
	}
	fresh := false
	if !o.ReadOnly {
		fi, err := os.Stat(path)
		fresh = errors.Is(err, fs.ErrNotExist) || err == nil && fi.Size() == 0
	}
	bdb, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: o.LockTimeout, ReadOnly: o.ReadOnly, NoFreelistSync: true, PageSize: PageSize})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("open store %s: %w", path, ErrLocked)
		}
		if fresh && isNoSpace(err) {
			// bbolt could not write the new file's first pages: what it
			// wrote is no database, and would be refused as one once
			// there is room again.
			os.Remove(path)
		}
		return nil, fmt.Errorf("open store %s: %w", path, noSpace(err))
	}
	db := &DB{bolt: bdb, path: path, opts: o, lite: &liteMemo{}, forgets: new(atomic.Uint64),
		changes: &changes{mark: 1, all: 1}, gen: new(atomic.Uint64)}
	if err := db.init(); err != nil {
		bdb.Close()
		if fresh && isNoSpace(err) {
			os.Remove(path) // created here and never initialised
		}
		return nil, fmt.Errorf("open store %s: %w", path, noSpace(err))
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
	// A database already at this schema, with every bucket, needs no
	// write to open: so it opens on a full disk too, and serves what it
	// holds while the collector waits for room (docs/store.md).
	current := false
	if err := db.bolt.View(func(tx *bolt.Tx) error {
		m := tx.Bucket(bMeta)
		if m == nil {
			return nil
		}
		n, _ := strconv.Atoi(string(m.Get(kSchema)))
		current = n == SchemaVersion
		for _, b := range allBuckets {
			current = current && tx.Bucket(b) != nil
		}
		return nil
	}); err != nil {
		return err
	}
	if current {
		return nil
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

// keys
