package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/record"
)

// EachOfVersion hands out one version's executions oldest first, up to
// maxSeq, the same as Executions newest first reversed, eachChunk per read
// transaction and never inside one; a commit during the walk adds nothing
// to it, and a prune between two chunks loses nothing still stored.
func TestEachOfVersionInChunks(t *testing.T) {
	defer func(n int) { eachChunk = n }(eachChunk)
	eachChunk = 3
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Batch
	// Two versions of deploy interleaved, one of review whose key sorts
	// right after deploy's, and a version whose hash extends another's.
	versions := []struct{ skill, version string }{{"deploy", "aaaa"}, {"deploy", "bbbb"}, {"deploy", "aaaa"},
		{"deployx", "aaaa"}, {"deploy", "aaaab"}}
	for i := 0; i < 40; i++ {
		v := versions[i%len(versions)]
		b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", i), v.skill, v.version, float64(50+i), t0.Add(time.Duration(i)*time.Minute)))
	}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	key := b.Executions[0].SkillKey
	walk := func(version string, maxSeq uint64, during func(*record.Scored)) []uint64 {
		t.Helper()
		var seqs []uint64
		before := db.bolt.Stats().TxN
		err := db.EachOfVersion(key, version, maxSeq, func(s *record.Scored) error {
			if n := db.bolt.Stats().OpenTxN; n != 0 {
				t.Fatalf("fn called inside a read transaction (%d open)", n)
			}
			if s.SkillKey != key || s.Version != version {
				t.Fatalf("walk of %s gave %s@%s", version, s.SkillKey, s.Version)
			}
			seqs = append(seqs, s.Seq)
			if during != nil {
				during(s)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if txs, want := db.bolt.Stats().TxN-before, len(seqs)/eachChunk+1; during == nil && txs != want {
			t.Errorf("%d records in %d read transactions, want %d", len(seqs), txs, want)
		}
		return seqs
	}
	want := func(version string, maxSeq uint64) []uint64 {
		xs, err := db.Executions(record.Filter{SkillKey: key, MaxSeq: maxSeq})
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for i := len(xs) - 1; i >= 0; i-- {
			if xs[i].Version == version {
				out = append(out, xs[i].Seq)
			}
		}
		return out
	}
	for _, c := range []struct {
		version string
		maxSeq  uint64
	}{{"aaaa", 0}, {"aaaa", 21}, {"aaaa", 3}, {"aaaa", 1}, {"bbbb", 0}, {"bbbb", 17}, {"aaaab", 0}, {"cccc", 0}, {"cccc", 5}} {
		got, exp := walk(c.version, c.maxSeq, nil), want(c.version, c.maxSeq)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s up to %d: %v, want %v", c.version, c.maxSeq, got, exp)
		}
	}
	// Executions committed during the walk are newer than it.
	all := want("aaaa", 0)
	n := 100
	got := walk("aaaa", 0, func(*record.Scored) {
		n++
		if err := db.Commit(&Batch{Executions: []record.Scored{scored(fmt.Sprintf("b%011d", n), "deploy", "aaaa", 70, t0.Add(time.Hour))}}); err != nil {
			t.Fatal(err)
		}
	})
	if !reflect.DeepEqual(got, all) {
		t.Errorf("with commits during the walk: %v, want %v", got, all)
	}
	// A prune of everything after the first chunk ends the walk there.
	all = want("aaaa", 0)
	got = walk("aaaa", 0, func(s *record.Scored) {
		if s.Seq == all[2] { // the last of the first chunk
			if _, err := db.Prune(time.Now().Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
	})
	if exp := all[:3]; !reflect.DeepEqual(got, exp) {
		t.Errorf("with a prune during the walk: %v, want %v", got, exp)
	}
}
