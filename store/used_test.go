package store

import (
	"fmt"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestUsedBytes: the pages in use are at most the file, at least the
// executions bucket's pages, and grow with the executions committed.
func TestUsedBytes(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var last int64
	for round := 0; round < 3; round++ {
		var b Batch
		for i := 0; i < 200; i++ {
			k := round*200 + i
			b.Executions = append(b.Executions, benchScored(k, fmt.Sprintf("skill-%d", k%3), "aaaaaaaaaaaa", t0.Add(time.Duration(k)*time.Second)))
		}
		if err := db.Commit(&b); err != nil {
			t.Fatal(err)
		}
		used, err := db.UsedBytes()
		if err != nil {
			t.Fatal(err)
		}
		st, err := db.Stats()
		if err != nil {
			t.Fatal(err)
		}
		var exec int64
		db.bolt.View(func(tx *bolt.Tx) error {
			s := tx.Bucket(bExec).Stats()
			exec = int64(s.BranchAlloc + s.LeafAlloc)
			return nil
		})
		if used > st.Size || used < exec || used <= last {
			t.Errorf("round %d: %d bytes used, file %d, executions' pages %d, before %d", round, used, st.Size, exec, last)
		}
		last = used
	}
}
