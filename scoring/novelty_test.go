package scoring

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

func valueExec(i int) record.Scored {
	topics := []string{"deploy the shop to staging", "fix the failing cart test", "explain the parser"}
	x := execution.Execution{ID: fmt.Sprintf("v%011d", i), SessionID: fmt.Sprintf("s%d", i), Skill: "a", Kind: "skill", Project: "/p",
		SkillVersion: "aaaaaaaaaaaa", Prompt: topics[i%3], Output: "All tests pass.", HasOutput: true, Complete: true,
		Calls: []execution.ToolCall{{Name: "Edit", Done: true}, {Name: "Bash", Kind: execution.KindTest, Done: true, Failed: i%4 == 0, Error: "exit 1"}}}
	// The caller checks the claims before the commit (the collector).
	return record.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: 70}, Integrity: integrity.Check(&x, nil)}
}

// commit measures xs with n, as the collector does, then commits them.
func commit(db *store.DB, n *Novelty, b *store.Batch) error {
	for i := range b.Executions {
		s := &b.Executions[i]
		v, vec, err := n.Value(store.SkillKey(&s.Exec), &s.Exec, s.Result)
		if err != nil {
			return err
		}
		s.Value, s.Vector = &v, &vec
	}
	return db.Commit(b)
}

func openTest(t *testing.T) (*store.DB, *Novelty) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.CheckInvariants(db); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return db, NewNovelty(db)
}

// TestValueReplay: values are the same whether the executions are
// committed in one database without a stop, or across reopenings (the
// novelty cache rebuilt from the store), and the over-claims are counted.
func TestValueReplay(t *testing.T) {
	one, n := openTest(t)
	for i := 0; i < 12; i++ {
		b := &store.Batch{Executions: []record.Scored{valueExec(i)}}
		if err := commit(one, n, b); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "sepa.db")
	for i := 0; i < 12; i += 4 {
		db, err := store.Open(path, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var xs []record.Scored
		for j := i; j < i+4; j++ {
			xs = append(xs, valueExec(j))
		}
		if err := commit(db, NewNovelty(db), &store.Batch{Executions: xs}); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	two, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer two.Close()
	for i := 0; i < 12; i++ {
		a, err := one.Execution(valueExec(i).Exec.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := two.Execution(valueExec(i).Exec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if a.Value == nil || !reflect.DeepEqual(a.Value, b.Value) {
			t.Fatalf("execution %d: value %+v, replayed %+v", i, a.Value, b.Value)
		}
		if i == 0 && (a.Value.Novelty != 0.5 || a.Value.Compared != 0) {
			t.Errorf("first execution: novelty %v against %d, want 0.5 against none", a.Value.Novelty, a.Value.Compared)
		}
		if i >= 5 && i%4 != 0 && a.Value.Novelty != 0 {
			t.Errorf("execution %d repeats an earlier one: novelty %v, want 0", i, a.Value.Novelty)
		}
	}
	vs, err := one.Versions("/p#a")
	if err != nil || len(vs) != 1 {
		t.Fatal(vs, err)
	}
	if vs[0].Claims != 12 || vs[0].OverClaims != 3 {
		t.Errorf("claims %d, over-claims %d; want 12 and 3 (every fourth test run failed)", vs[0].Claims, vs[0].OverClaims)
	}
}

// A commit that fails after its executions were measured leaves no trace
// of them once Novelty is Reset (as the collector does): the next
// commit's values are those of a database that never saw the failed one.
func TestValueAfterFailedCommit(t *testing.T) {
	clean, cn := openTest(t)
	failed, fn := openTest(t)
	novelty := map[*store.DB]*Novelty{clean: cn, failed: fn}
	for i := 0; i < 5; i++ {
		for _, db := range []*store.DB{clean, failed} {
			if err := commit(db, novelty[db], &store.Batch{Executions: []record.Scored{valueExec(i)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// An empty transcript path is a key bbolt refuses: the commit fails
	// after the executions' values were computed.
	bad := &store.Batch{Executions: []record.Scored{valueExec(5), valueExec(6)}, Transcripts: []record.TranscriptOffset{{Path: ""}}}
	if err := commit(failed, fn, bad); err == nil {
		t.Fatal("a commit with an empty transcript key succeeded")
	}
	fn.Reset()
	if _, err := failed.Execution(valueExec(5).Exec.ID); err == nil {
		t.Fatal("the failed commit's execution is stored")
	}
	for i := 5; i < 9; i++ {
		for _, db := range []*store.DB{clean, failed} {
			if err := commit(db, novelty[db], &store.Batch{Executions: []record.Scored{valueExec(i)}}); err != nil {
				t.Fatal(err)
			}
		}
		a, err := clean.Execution(valueExec(i).Exec.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := failed.Execution(valueExec(i).Exec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Value, b.Value) {
			t.Errorf("execution %d: value %+v after a failed commit, %+v without", i, b.Value, a.Value)
		}
	}
}

// A forgotten skill's vectors go with it: the next execution of the
// skill is measured against none, though Novelty held them in memory.
func TestValueAfterForget(t *testing.T) {
	db, n := openTest(t)
	for i := 0; i < 3; i++ {
		if err := commit(db, n, &store.Batch{Executions: []record.Scored{valueExec(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if vs, err := db.NoveltyVectors("/p#a"); err != nil || len(vs) != 3 {
		t.Fatalf("%d vectors kept, %v; want 3", len(vs), err)
	}
	if _, err := db.ForgetSkill("/p#a"); err != nil {
		t.Fatal(err)
	}
	if vs, err := db.NoveltyVectors("/p#a"); err != nil || len(vs) != 0 {
		t.Fatalf("%d vectors kept after forget, %v", len(vs), err)
	}
	x := valueExec(3)
	if err := commit(db, n, &store.Batch{Executions: []record.Scored{x}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Execution(x.Exec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Value == nil || got.Value.Compared != 0 || got.Value.Novelty != 0.5 {
		t.Errorf("after forget: %+v, want novelty 0.5 against none", got.Value)
	}
}
