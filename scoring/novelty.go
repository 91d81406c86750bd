package scoring

import (
	"sync"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/tracevalue"
)

// Vectors is where Novelty reads the vectors of the executions stored
// before (the store, store.DB).
type Vectors interface {
	// NoveltyVectors returns the vectors kept of a skill's newest
	// executions (at most tracevalue.CacheSize), oldest first.
	NoveltyVectors(skillKey string) ([]tracevalue.Vector, error)
	// Forgets changes whenever a skill is forgotten, and its vectors
	// with it.
	Forgets() uint64
}

// maxCaches bounds the skills whose vectors Novelty holds in memory
// (each at most 384 KB); another skill's are read from the store.
const maxCaches = 16

// Novelty measures each execution's value (package tracevalue) against
// its skill's previous executions, in commit order, before the commit:
// the store keeps the value and the execution's vector as they are
// given. It holds the vectors of the skills measured lately in memory,
// read from the store when first needed, and reads them again after a
// skill was forgotten or when told to (Reset: a commit that failed).
type Novelty struct {
	src     Vectors
	mu      sync.Mutex
	caches  map[string]*tracevalue.Cache
	order   []string // least recently used first
	forgets uint64
}

// NewNovelty returns a Novelty reading the stored vectors from src.
func NewNovelty(src Vectors) *Novelty {
	return &Novelty{src: src, caches: map[string]*tracevalue.Cache{}, forgets: src.Forgets()}
}

// Value measures x, scored as r, against the executions of its skill
// (key) measured before it, then counts it among them. It returns the
// value and x's vector, for the store to keep with it.
func (n *Novelty) Value(key string, x *execution.Execution, r fitness.Result) (tracevalue.Value, tracevalue.Vector, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	c, err := n.cache(key)
	if err != nil {
		return tracevalue.Value{}, tracevalue.Vector{}, err
	}
	tr := tracevalue.FromExecution(x, r.Score, r.Scored)
	vec := tracevalue.Vectorize(tracevalue.Text(tr))
	v := tracevalue.Evaluate(tr, vec, c)
	c.Add(vec)
	return v, vec, nil
}

// Reset forgets the vectors held in memory: they are read again from
// the store when next needed. A commit that failed calls it, since the
// vectors measured for it are not stored.
func (n *Novelty) Reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	clear(n.caches)
	n.order = nil
}

// cache returns the skill's vectors, read from the store unless held.
func (n *Novelty) cache(key string) (*tracevalue.Cache, error) {
	if g := n.src.Forgets(); g != n.forgets {
		clear(n.caches)
		n.order, n.forgets = nil, g
	}
	for i, k := range n.order {
		if k == key {
			copy(n.order[i:], n.order[i+1:])
			n.order[len(n.order)-1] = key
			return n.caches[key], nil
		}
	}
	vs, err := n.src.NoveltyVectors(key)
	if err != nil {
		return nil, err
	}
	c := tracevalue.NewCache(0)
	for _, v := range vs {
		c.Add(v)
	}
	n.caches[key] = c
	n.order = append(n.order, key)
	if len(n.order) > maxCaches {
		delete(n.caches, n.order[0])
		n.order = n.order[1:]
	}
	return c, nil
}
