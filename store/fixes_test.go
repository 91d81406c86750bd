package store

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// A reader cannot migrate: a file with an older schema, or a v1 file
// missing a bucket (written by an early build), is refused with a message
// saying how to upgrade it, instead of a nil-bucket panic on the first
// read. A writer's open upgrades it, after which readers work.
func TestReadOnlyOlderOrIncompleteRefused(t *testing.T) {
	for _, c := range []struct {
		name    string
		schema  string
		buckets [][]byte
	}{
		{"older_schema", "0", [][]byte{bMeta}},
		{"missing_bucket", "1", [][]byte{bMeta, bOffsets, bOpen, bExec, bBySeq, bByVersion, bSkills, bVersions, bAggregates, bQuarantine, bEvents}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sepa.db")
			b, err := bolt.Open(path, 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			b.Update(func(tx *bolt.Tx) error {
				for _, name := range c.buckets {
					tx.CreateBucket(name)
				}
				return tx.Bucket(bMeta).Put(kSchema, []byte(c.schema))
			})
			b.Close()
			_, err = Open(path, Options{ReadOnly: true})
			if err == nil || !strings.Contains(err.Error(), "start the daemon once") {
				t.Fatalf("read-only open of an old layout: %v", err)
			}
			w, err := Open(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			r, err := Open(path, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.RecentSessions(0); err != nil {
				t.Fatal(err)
			}
			if _, err := r.Stats(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// An empty file (created, never initialised) read-only gets a message, not
// "bad file descriptor".
func TestReadOnlyEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{ReadOnly: true})
	if err == nil || !strings.Contains(err.Error(), "never initialised") {
		t.Fatalf("err = %v", err)
	}
}

// Executions with a skill key (any version filter, MaxSeq, limits) gives
// exactly what filtering every execution gives, in the same order.
func TestSkillFiltersMatchFullScan(t *testing.T) {
	db, _ := openTest(t, Options{})
	r := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for c := 0; c < 6; c++ {
		var b Batch
		for i := 0; i < 50; i++ {
			n := c*50 + i
			ver := []string{"", "aaaaaaaaaaaa", "aaaaaaaabbbb", "cccccccccccc"}[r.IntN(4)]
			b.Executions = append(b.Executions, scored(fmt.Sprintf("f%011d", n), []string{"x", "y", "z"}[r.IntN(3)], ver, float64(r.IntN(100)), t0.Add(time.Duration(r.IntN(1000))*time.Minute)))
		}
		if err := db.Commit(&b); err != nil {
			t.Fatal(err)
		}
	}
	all, err := db.Executions(record.Filter{})
	if err != nil || len(all) != 300 {
		t.Fatalf("%d executions, %v", len(all), err)
	}
	for trial := 0; trial < 200; trial++ {
		f := record.Filter{SkillKey: "/p/.claude/skills/" + []string{"x", "y", "z"}[r.IntN(3)] + "/SKILL.md",
			Version: []string{"", "a", "aaaaaaaa", "aaaaaaaaaaaa", "cccccccccccc", "unknown", "unk", "zzz"}[r.IntN(8)],
			Limit:   []int{0, 1, 5, 40}[r.IntN(4)]}
		if r.IntN(2) == 0 {
			f.MaxSeq = uint64(r.IntN(320))
		}
		if r.IntN(3) == 0 {
			f.Since = t0.Add(time.Duration(r.IntN(1000)) * time.Minute)
		}
		var want []string
		for i := range all {
			if f.Match(&all[i]) && (f.Limit == 0 || len(want) < f.Limit) {
				want = append(want, all[i].Exec.ID)
			}
		}
		got, err := db.Executions(f)
		if err != nil || fmt.Sprint(ids(got)) != fmt.Sprint(want) {
			t.Fatalf("%+v: got %v (%v), want %v", f, ids(got), err, want)
		}
	}
}

// One skill's decisions, newest first, limited, whatever the other
// skills' decisions around them.
func TestDecisionsOfOneSkill(t *testing.T) {
	db, _ := openTest(t, Options{})
	keys := []string{"/p/a", "/p/b", "/p/", "/p/a/b", "/p/c"}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 60; i++ {
		if err := db.PutDecision(keys[r.IntN(len(keys)-1)], time.Unix(int64(i), 0), i); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := db.Decisions("", 0)
	for _, k := range keys {
		for _, limit := range []int{0, 1, 3, 100} {
			var want []uint64
			for _, d := range all {
				if d.SkillKey == k && (limit == 0 || len(want) < limit) {
					want = append(want, d.Seq)
				}
			}
			ds, err := db.Decisions(k, limit)
			var got []uint64
			for _, d := range ds {
				got = append(got, d.Seq)
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Decisions(%q, %d) = %v (%v), want %v", k, limit, got, err, want)
			}
		}
	}
}
