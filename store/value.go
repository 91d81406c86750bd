package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/tracevalue"
)

// maxValueCaches bounds the skills whose novelty caches stay in memory
// (each at most 384 KB); another skill's cache is rebuilt from the store
// when it is needed.
const maxValueCaches = 16

// valueCaches are the novelty caches of the skills committed to lately:
// the vectors of each skill's last tracevalue.CacheSize executions, in
// commit order. A cache is a function of the store (rebuilt from the
// skill's stored executions when missing), so a restart or a replay gives
// the same values.
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

// reset forgets every cache (after a prune or a forget: they are rebuilt
// from what the store holds).
func (vc *valueCaches) reset() {
	vc.mu.Lock()
	defer vc.mu.Unlock()
	vc.m, vc.order = nil, nil
}

// valueCache returns the commit's working copy of a skill's cache.
func (db *DB) valueCache(tx *bolt.Tx, tc *txCache, key string) (*tracevalue.Cache, error) {
	if c := tc.values[key]; c != nil {
		return c, nil
	}
	var c *tracevalue.Cache
	if held := db.values.get(key); held != nil {
		c = held.Clone()
	} else {
		var err error
		if c, err = loadValueCache(tx, key); err != nil {
			return nil, err
		}
	}
	tc.values[key] = c
	return c, nil
}

// loadValueCache builds a skill's cache from its last CacheSize stored
// executions, oldest first.
func loadValueCache(tx *bolt.Tx, key string) (*tracevalue.Cache, error) {
	type ref struct {
		seq uint64
		id  []byte
	}
	var refs []ref
	prefix := []byte(key + "\x00")
	c := tx.Bucket(bByVersion).Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(k) < 8 {
			continue
		}
		refs = append(refs, ref{^binary.BigEndian.Uint64(k[len(k)-8:]), v})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].seq < refs[j].seq })
	if len(refs) > tracevalue.CacheSize {
		refs = refs[len(refs)-tracevalue.CacheSize:]
	}
	cache := tracevalue.NewCache(0)
	ex := tx.Bucket(bExec)
	for _, r := range refs {
		b := ex.Get(r.id)
		if b == nil {
			continue
		}
		var s Scored
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("decode execution %s: %w", r.id, err)
		}
		cache.Add(vectorOf(&s))
	}
	return cache, nil
}

func vectorOf(s *Scored) tracevalue.Vector {
	return tracevalue.Vectorize(tracevalue.Text(tracevalue.FromExecution(&s.Exec, s.Result.Score, s.Result.Scored)))
}

// putValue computes s's value against its skill's previous executions
// and adds it to the cache (putExecution, after the execution's seq).
func (db *DB) putValue(tx *bolt.Tx, tc *txCache, s *Scored) error {
	cache, err := db.valueCache(tx, tc, s.SkillKey)
	if err != nil {
		return err
	}
	tr := tracevalue.FromExecution(&s.Exec, s.Result.Score, s.Result.Scored)
	vec := tracevalue.Vectorize(tracevalue.Text(tr))
	v := tracevalue.Evaluate(tr, vec, cache)
	s.Value = &v
	cache.Add(vec)
	return nil
}
