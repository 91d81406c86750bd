package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/sepad/sepad/tracevalue"
	bolt "go.etcd.io/bbolt"
)

// The novelty bucket's keys are appended per skill (skill NUL seq) and
// its oldest deleted from the front, so it is filled to 100 % instead of
// bbolt's default 50 %: its pages were 43-46 % full, now 70-93 % with
// 16 KiB pages (not more: a skill's appends land in the middle of the
// bucket, before the next skill's keys, and bbolt leaves those keys on a
// page of their own at a split, which weighs more while there are few
// pages), through commits of one execution and of a hundred, before and
// after the caches are full (1,000 vectors a skill).
func TestNoveltyPagesFull(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for _, c := range []struct{ per, n int }{{1, 600}, {100, 1500}} {
		per := c.per
		for i := 0; i < c.n; i += per {
			var b Batch
			for j := 0; j < per; j++ {
				s := benchScored(n, fmt.Sprintf("skill-%d", n%2), "aaaaaaaaaaaa", t0.Add(time.Duration(n)*time.Second))
				vec := tracevalue.Vectorize(s.Exec.Prompt)
				s.Vector = &vec
				b.Executions = append(b.Executions, s)
				n++
			}
			if err := db.Commit(&b); err != nil {
				t.Fatal(err)
			}
		}
		err := db.bolt.View(func(tx *bolt.Tx) error {
			st := tx.Bucket(bNovelty).Stats()
			if st.KeyN != min(n, 2000) {
				t.Errorf("%d vectors, want %d", st.KeyN, min(n, 2000))
			}
			t.Logf("%d executions, %d a commit: %.0f%% full, %d pages", n, per, float64(st.LeafInuse)/float64(st.LeafAlloc)*100, st.LeafPageN)
			if used := float64(st.LeafInuse) / float64(st.LeafAlloc); used < 0.6 {
				t.Errorf("after %d executions, %d a commit: novelty pages %.0f%% full", n, per, used*100)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
