package store

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/record"
)

// liteMemo keeps what versionsLite computed for each version (its record
// decoded, its aggregate computed from the stored state), keyed by a hash
// of the two stored values: a listing of every skill after a write
// decodes and recomputes only the versions that write changed, not all of
// them (BenchmarkDashboardBigStore). The values are compared by
// content, so nothing has to invalidate the memo: a changed record simply
// misses.
type liteMemo struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[string]liteEntry
}

type liteEntry struct {
	ver, agg       uint64
	verLen, aggLen int
	v              record.Version
}

// maxLiteMemo bounds the versions remembered (about 300 bytes each).
const maxLiteMemo = 200_000

// versionLite decodes one version record v and its aggregate state a (nil
// when it has none), or returns them from the memo.
func (db *DB) versionLite(k, v, a []byte, o aggregate.Options) (record.Version, error) {
	m := db.lite
	m.mu.Lock()
	if m.m == nil {
		m.seed, m.m = maphash.MakeSeed(), map[string]liteEntry{}
	}
	seed := m.seed
	e, ok := m.m[string(k)]
	m.mu.Unlock()
	hv, ha := maphash.Bytes(seed, v), maphash.Bytes(seed, a)
	if ok && e.ver == hv && e.agg == ha && e.verLen == len(v) && e.aggLen == len(a) {
		return e.v, nil
	}
	var ver versionNoContent
	if err := json.Unmarshal(v, &ver); err != nil {
		return record.Version{}, fmt.Errorf("decode version %q: %w", k, err)
	}
	if ver.Description == "" && ver.ContentKnown {
		// A record written before Description: read its content once.
		var full struct {
			Content []byte `json:"content"`
		}
		if json.Unmarshal(v, &full) == nil {
			ver.Description = activation.DescriptionHash(full.Content)
		}
	}
	if a != nil {
		var st tallyNoIDs
		if err := json.Unmarshal(a, &st); err != nil {
			return record.Version{}, fmt.Errorf("decode aggregate of %q: %w", k, err)
		}
		st.Tally.State = st.State.State
		st.Tally.Fill(&ver.Version, o)
	}
	m.mu.Lock()
	if len(m.m) >= maxLiteMemo {
		clear(m.m)
	}
	m.m[string(k)] = liteEntry{ver: hv, agg: ha, verLen: len(v), aggLen: len(a), v: ver.Version}
	m.mu.Unlock()
	return ver.Version, nil
}
