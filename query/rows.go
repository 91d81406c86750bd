package query

import (
	"strings"
	"sync"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/store"
)

// Listings (executions, history) walk an index of IDs and need a row per
// execution. A stored execution never changes, so its row is decoded once
// and kept: under steady ingestion, when every commit invalidates the
// API's answers, a listing of the newest executions decodes only those
// committed since the last one.

// maxCachedRows bounds the rows kept (a row is a few hundred bytes).
var maxCachedRows = 20_000

type rowCache struct {
	mu   sync.Mutex
	db   *store.DB // rows belong to this database
	rows map[string]cachedRow
}

// cachedRow is a listing row with what filters need beyond it, and its
// commit sequence number: a row is used only for the same ID at the same
// sequence number (a database reopened at the same address, as tests do,
// cannot hand out another's rows).
type cachedRow struct {
	row    ExecRow
	stored time.Time
	seq    uint64
}

var rowsCache = &rowCache{}

// get returns the rows of ids committed at seqs (in order; unknown IDs
// skipped), decoding only those not kept yet. seqOf numbers a version.
func (c *rowCache) get(db *store.DB, ids []string, seqs []uint64, seqOf func(skillKey, hash string) int) ([]cachedRow, error) {
	out := make([]cachedRow, 0, len(ids))
	var miss []string
	hits := make([]*cachedRow, len(ids))
	c.mu.Lock()
	if c.db != db {
		c.db, c.rows = db, map[string]cachedRow{}
	}
	for i, id := range ids {
		if r, ok := c.rows[id]; ok && r.seq == seqs[i] {
			hits[i] = &r
		} else {
			miss = append(miss, id)
		}
	}
	c.mu.Unlock()
	decoded := map[string]cachedRow{}
	if len(miss) > 0 {
		xs, err := db.ExecutionsLite(miss)
		if err != nil {
			return nil, err
		}
		for i := range xs {
			s := &xs[i]
			decoded[s.Exec.ID] = cachedRow{row: execRow(s, seqOf(s.SkillKey, s.Version)), stored: s.Stored, seq: s.Seq}
		}
		c.mu.Lock()
		if c.db != db {
			c.db, c.rows = db, map[string]cachedRow{}
		}
		if len(c.rows)+len(decoded) > maxCachedRows {
			c.rows = map[string]cachedRow{} // rare: start over
		}
		for id, r := range decoded {
			c.rows[id] = r
		}
		c.mu.Unlock()
	}
	for i, id := range ids {
		if hits[i] != nil {
			out = append(out, *hits[i])
		} else if r, ok := decoded[id]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}

// rowFilter selects rows as record.Filter selects executions.
type rowFilter struct {
	grade   fitness.Grade
	since   time.Time
	version string // hash prefix
}

func (f *rowFilter) match(r *ExecRow) bool {
	return (f.grade == "" || r.Grade == string(f.grade)) &&
		(f.since.IsZero() || !r.Time.Before(f.since)) &&
		(f.version == "" || strings.HasPrefix(r.Hash, f.version))
}

// walkRows calls fn with the rows of the executions of one version (or
// all), newest first by commit sequence, that pass the filter; fn returns
// false to stop. want is the caller's limit. A walk with since stops at
// the first execution committed more than sinceSlack before it.
func walkRows(db *store.DB, skillKey, version string, want int, f rowFilter, seqOf func(skillKey, hash string) int,
	fn func(r *ExecRow, seq uint64) bool) error {
	var ids []string
	var seqs []uint64
	stop := false
	flush := func() error {
		rows, err := rowsCache.get(db, ids, seqs, seqOf)
		if err != nil {
			return err
		}
		byID := make(map[string]int, len(rows))
		for i := range rows {
			byID[rows[i].row.ID] = i
		}
		for k, id := range ids {
			i, ok := byID[id]
			if !ok {
				continue // removed since the index was read: not possible today
			}
			r := &rows[i]
			if !f.since.IsZero() && !r.stored.IsZero() && r.stored.Before(f.since.Add(-sinceSlack)) {
				stop = true // committed before Since: so are all older ones
				return nil
			}
			if f.match(&r.row) && !fn(&r.row, seqs[k]) {
				stop = true
				return nil
			}
		}
		ids, seqs = ids[:0], seqs[:0]
		return nil
	}
	batch := min(max(want, 16), 512)
	var ferr error
	err := db.WalkExecutionIDs(skillKey, version, batch, func(id string, seq uint64) bool {
		ids, seqs = append(ids, id), append(seqs, seq)
		if len(ids) >= batch {
			ferr = flush()
			batch = min(batch*4, 512)
		}
		return ferr == nil && !stop
	})
	if err != nil {
		return err
	}
	if ferr != nil {
		return ferr
	}
	if !stop && len(ids) > 0 {
		return flush()
	}
	return nil
}
