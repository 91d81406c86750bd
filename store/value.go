package store

import (
	"bytes"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/tracevalue"
)

// bNovelty is the novelty cache of every skill (docs/value.md): key
// skill_key NUL u64 seq, value the 384-byte lexical vector of that
// execution, at most tracevalue.CacheSize per skill (the oldest is
// deleted when a newer one comes). Created by the first commit, so a
// read-only open does not need it.
var bNovelty = []byte("novelty")

// maxValueCaches bounds the skills whose novelty caches are also held in
// memory (each at most 384 KB); another skill's is read from bNovelty.
const maxValueCaches = 16

// valueCaches are the in-memory copies of the novelty caches of the
// skills committed to lately.
type valueCaches struct {
	mu    sync.Mutex
	m     map[string]*tracevalue.Cache
	order []string // least recently used first
}

func (vc *valueCaches) get(key string) *tracevalue.Cache {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	return vc.m[key]
}

// install keeps the caches a successful commit changed.
func (vc *valueCaches) install(m map[string]*tracevalue.Cache) {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	if vc.m == nil {
		vc.m = map[string]*tracevalue.Cache{}
	}
	for k, c := range m {
		vc.m[k] = c
		for i, o := range vc.order {
			if o == k {
				vc.order = append(vc.order[:i], vc.order[i+1:]...)
				break
			}
		}
		vc.order = append(vc.order, k)
	}
	for len(vc.order) > maxValueCaches {
		delete(vc.m, vc.order[0])
		vc.order = vc.order[1:]
	}
}

// drop forgets the in-memory copies of the caches m holds: a commit that
// failed changed them, and its transaction was rolled back, so they are
// read again from bNovelty when next needed.
func (vc *valueCaches) drop(m map[string]*tracevalue.Cache) {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	for k := range m {
		delete(vc.m, k)
		for i, o := range vc.order {
			if o == k {
				vc.order = append(vc.order[:i], vc.order[i+1:]...)
				break
			}
		}
	}
}

// reset forgets the in-memory copies (a forget changes bNovelty).
func (vc *valueCaches) reset() {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	vc.m, vc.order = nil, nil
}

// valueCache returns a skill's cache for the commit to change: the one
// held in memory itself, not a copy (a copy of a full cache is 384 KB
// per skill per commit, a third of what the daemon allocated while
// ingesting); a commit that fails drops the caches it changed
// (valueCaches.drop), so none outlives a rolled-back transaction.
func (db *DB) valueCache(tx *bolt.Tx, tc *txCache, key string) (*tracevalue.Cache, error) {
	if c := tc.values[key]; c != nil {
		return c, nil
	}
	var c *tracevalue.Cache
	if held := db.values.get(key); held != nil {
		c = held
	} else {
		c = tracevalue.NewCache(0)
		if nb := tx.Bucket(bNovelty); nb != nil {
			prefix := []byte(key + "\x00")
			cur := nb.Cursor()
			for k, v := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = cur.Next() {
				var vec tracevalue.Vector
				for i := range vec {
					if i < len(v) {
						vec[i] = int8(v[i])
					}
				}
				c.Add(vec)
			}
		}
	}
	tc.values[key] = c
	return c, nil
}

// putValue computes s's value against its skill's previous executions,
// then adds its vector to the cache, in memory and in bNovelty
// (putExecution, once s has its seq).
func (db *DB) putValue(tx *bolt.Tx, tc *txCache, s *record.Scored) error {
	cache, err := db.valueCache(tx, tc, s.SkillKey)
	if err != nil {
		return err
	}
	tr := tracevalue.FromExecution(&s.Exec, s.Result.Score, s.Result.Scored)
	vec := tracevalue.Vectorize(tracevalue.Text(tr))
	v := tracevalue.Evaluate(tr, vec, cache)
	s.Value = &v
	full := cache.Len() >= tracevalue.CacheSize
	cache.Add(vec)
	nb, err := tx.CreateBucketIfNotExists(bNovelty)
	if err != nil {
		return err
	}
	// A skill's vectors are appended in commit order (its oldest goes
	// from the front): full pages, not bbolt's half-full default.
	nb.FillPercent = 1
	prefix := []byte(s.SkillKey + "\x00")
	raw := make([]byte, len(vec))
	for i, x := range vec {
		raw[i] = byte(x)
	}
	if full {
		// The cache dropped its oldest vector: so does the bucket.
		if k, _ := nb.Cursor().Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) {
			if err := nb.Delete(k); err != nil {
				return err
			}
		}
	}
	return nb.Put(append(append([]byte(nil), prefix...), u64(s.Seq)...), raw)
}
