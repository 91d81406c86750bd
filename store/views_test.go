package store

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	bolt "go.etcd.io/bbolt"
)

// The query helpers read the same records as the store's own queries,
// without contents and window IDs.
func TestSkillsByKeyMatchesSkills(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "sepa.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	if _, err := db.PutVersion(record.Skill{Key: "/p/a/SKILL.md", Name: "a", Kind: "skill", Project: "/p"},
		record.Version{Hash: "aaaaaaaaaaaa", ContentKnown: true, Content: []byte("# A\n"), Source: "edit", FirstSeen: t0}); err != nil {
		t.Fatal(err)
	}
	var xs []record.Scored
	for i := 0; i < 30; i++ {
		ver := []string{"aaaaaaaaaaaa", "bbbbbbbbbbbb", ""}[i%3]
		x := execution.Execution{ID: fmt.Sprintf("x%011d", i), SessionID: "s", Skill: "a", Kind: "skill", Project: "/p",
			SkillPath: "/p/a/SKILL.md", SkillVersion: ver, StartedAt: t0.Add(time.Duration(i) * time.Minute),
			Calls: []execution.ToolCall{{Name: "Read"}, {Name: "Bash", Failed: i%4 == 0}}}
		if i%5 == 0 {
			x.Skill, x.SkillPath = "b", ""
		}
		r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: i%7 != 0, Score: float64(30 + 2*i)}
		xs = append(xs, record.Scored{Exec: x, Result: r})
	}
	if err := db.Commit(&Batch{Executions: xs}); err != nil {
		t.Fatal(err)
	}
	all, err := db.Skills()
	if err != nil {
		t.Fatal(err)
	}
	keys, err := db.SkillKeys()
	if err != nil || len(keys) != len(all) {
		t.Fatalf("keys %v %v", keys, err)
	}
	got, err := db.SkillsByKey(append([]string{"missing"}, keys...))
	if err != nil || len(got) != len(all) {
		t.Fatalf("SkillsByKey: %d skills, %v", len(got), err)
	}
	list, err := db.SkillList()
	if err != nil || len(list) != len(all) {
		t.Fatalf("SkillList: %d, %v", len(list), err)
	}
	for i := range all {
		want := all[i]
		for j := range want.Versions {
			want.Versions[j].Content = nil
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("skill %s:\n got %+v\nwant %+v", keys[i], got[i], want)
		}
		want.Versions = nil
		if !reflect.DeepEqual(list[i], want) {
			t.Errorf("SkillList %s: %+v", keys[i], list[i])
		}
		seqs, err := db.VersionSeqs(keys[i])
		if err != nil || len(seqs) != len(all[i].Versions) {
			t.Fatalf("VersionSeqs: %v %v", seqs, err)
		}
		for _, v := range all[i].Versions {
			if seqs[v.Hash] != v.Seq {
				t.Errorf("seq of %s: %d, want %d", v.Hash, seqs[v.Hash], v.Seq)
			}
		}
	}
	if len(all) != 2 || len(all[0].Versions) < 2 || all[0].Versions[0].Aggregate.N == 0 {
		t.Fatalf("fixture too thin: %+v", all)
	}
}

// walkLite calls fn with the executions WalkExecutionIDs names, read as a
// listing reads them (ExecutionsLite), newest first.
func walkLite(db *DB, skillKey, version string, want int, fn func(*record.Scored) bool) error {
	var ids []string
	if err := db.WalkExecutionIDs(skillKey, version, want, func(id string, _ uint64) bool { ids = append(ids, id); return true }); err != nil {
		return err
	}
	xs, err := db.ExecutionsLite(ids)
	if err != nil {
		return err
	}
	for i := range xs {
		if !fn(&xs[i]) {
			return nil
		}
	}
	return nil
}

// WalkExecutionIDs sees every execution once, newest first, across
// chunks, and per version only that version's.
func TestWalkExecutionIDsChunks(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "sepa.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 1500
	for i := 0; i < n; i += 250 {
		var xs []record.Scored
		for j := i; j < i+250; j++ {
			xs = append(xs, record.Scored{Exec: execution.Execution{ID: fmt.Sprintf("w%011d", j), SessionID: "s", Skill: "a",
				Project: "/p", SkillVersion: []string{"v1v1v1v1v1v1", "unknown"}[j%2]}})
		}
		if err := db.Commit(&Batch{Executions: xs}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		version string
		want    int
		step    int
	}{{"", n, 1}, {"v1v1v1v1v1v1", n / 2, 2}, {"unknown", n / 2, 2}} {
		var seen []uint64
		key := ""
		if c.version != "" {
			key = "/p#a"
		}
		if err := db.WalkExecutionIDs(key, c.version, 3, func(_ string, seq uint64) bool {
			seen = append(seen, seq)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if len(seen) != c.want {
			t.Fatalf("version %q: %d executions, want %d", c.version, len(seen), c.want)
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] >= seen[i-1] {
				t.Fatalf("version %q: not newest first at %d: %d after %d", c.version, i, seen[i], seen[i-1])
			}
		}
	}
	count := 0
	db.WalkExecutionIDs("", "", 10, func(string, uint64) bool { count++; return count < 25 })
	if count != 25 {
		t.Errorf("stopping walk saw %d", count)
	}
	txid, err := db.TxID()
	if err != nil || txid == 0 {
		t.Fatalf("txid %d %v", txid, err)
	}
	db.PutDecision("/p#a", time.Now(), "x")
	if t2, _ := db.TxID(); t2 <= txid {
		t.Errorf("txid did not move after a write: %d then %d", txid, t2)
	}
}

// A listing walk returns what Execution returns, less the output, the
// prompt and the signals; RecentSessions returns the latest sessions.
func TestWalkIsExecutionLessTheBulk(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "sepa.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var xs []record.Scored
	for i := 0; i < 12; i++ {
		x := execution.Execution{ID: fmt.Sprintf("l%011d", i), SessionID: fmt.Sprintf("s%d", i%4), Skill: "a", Kind: "skill", Project: "/p",
			SkillVersion: "aaaaaaaaaaaa", Prompt: "fix it", Output: "## Done\n\nlong answer", HasOutput: true, Complete: true,
			StartedAt: t0.Add(time.Duration(i) * time.Minute), EndedAt: t0.Add(time.Duration(i)*time.Minute + time.Second),
			Calls: []execution.ToolCall{{ID: "c", Name: "Bash", Failed: i%2 == 0, HasDuration: true, DurationMS: 40}}}
		r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: float64(50 + i), Grade: fitness.GradeOf(float64(50 + i)),
			Signals: []fitness.Signal{{Signal: fitness.SignalToolSuccess, Present: true, Detail: "d"}}, Errors: fitness.ErrorCounts{Total: 2}}
		xs = append(xs, record.Scored{Exec: x, Result: r})
	}
	if err := db.Commit(&Batch{Executions: xs}); err != nil {
		t.Fatal(err)
	}
	n := 0
	err = walkLite(db, "", "", 5, func(s *record.Scored) bool {
		n++
		full, err := db.Execution(s.Exec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if full.Exec.Output == "" || full.Exec.Prompt == "" || len(full.Result.Signals) != 1 {
			t.Fatalf("Execution lost the bulk: %+v", full)
		}
		if s.Exec.Output != "" || s.Exec.Prompt != "" || s.Result.Signals != nil {
			t.Errorf("walk decoded the bulk of %s", s.Exec.ID)
		}
		full.Exec.Output, full.Exec.Prompt, full.Result.Signals = "", "", nil
		if !reflect.DeepEqual(*s, *full) {
			t.Errorf("walk %+v\n  != %+v", *s, *full)
		}
		return true
	})
	if err != nil || n != 12 {
		t.Fatalf("walked %d: %v", n, err)
	}
	all, err := db.RecentSessions(0)
	if err != nil {
		t.Fatal(err)
	}
	recent, err := db.RecentSessions(2)
	if err != nil || len(recent) != 2 || len(all) != 4 {
		t.Fatalf("recent %d of %d: %v", len(recent), len(all), err)
	}
	for i := range recent {
		if !reflect.DeepEqual(recent[i], all[i]) {
			t.Errorf("recent[%d] = %+v, want %+v", i, recent[i], all[i])
		}
	}
}

// TxID changes with every committed write and with nothing else: the
// API's cache keys its answers by it, so a write it missed would serve a
// stale answer. It equals bbolt's own transaction ID, here and after a
// reopen.
func TestTxIDFollowsWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bolted := func() uint64 {
		var id int
		db.bolt.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
		return uint64(id)
	}
	g0, _ := db.TxID()
	if g0 != bolted() {
		t.Fatalf("at open: TxID %d, bbolt %d", g0, bolted())
	}
	if _, err := db.SkillKeys(); err != nil {
		t.Fatal(err)
	}
	if g, _ := db.TxID(); g != g0 {
		t.Errorf("a read changed TxID: %d -> %d", g0, g)
	}
	if _, err := db.Prune(time.Now()); err != nil {
		t.Fatal(err)
	}
	g1, _ := db.TxID()
	if g1 <= g0 || g1 != bolted() {
		t.Errorf("after a write: TxID %d (was %d), bbolt %d", g1, g0, bolted())
	}
	db.Close()
	if db, err = Open(path, Options{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if g, _ := db.TxID(); g != g1 {
		t.Errorf("after a reopen: TxID %d, want %d", g, g1)
	}
}
