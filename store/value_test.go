package store

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/record"
)

func valueExec(i int) record.Scored {
	topics := []string{"deploy the shop to staging", "fix the failing cart test", "explain the parser"}
	x := execution.Execution{ID: fmt.Sprintf("v%011d", i), SessionID: fmt.Sprintf("s%d", i), Skill: "a", Kind: "skill", Project: "/p",
		SkillVersion: "aaaaaaaaaaaa", Prompt: topics[i%3], Output: "All tests pass.", HasOutput: true, Complete: true,
		Calls: []execution.ToolCall{{Name: "Edit", Done: true}, {Name: "Bash", Kind: execution.KindTest, Done: true, Failed: i%4 == 0, Error: "exit 1"}}}
	// The caller checks the claims before the commit (the collector).
	return record.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: 70}, Integrity: integrity.Check(&x, nil)}
}

// TestValueReplay: values are the same whether the executions are
// committed in one database without a stop, or across reopenings (the
// novelty cache rebuilt from the store), and the over-claims are counted.
func TestValueReplay(t *testing.T) {
	one, _ := openTest(t, Options{})
	for i := 0; i < 12; i++ {
		b := &Batch{Executions: []record.Scored{valueExec(i)}}
		if err := one.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "sepa.db")
	for i := 0; i < 12; i += 4 {
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var xs []record.Scored
		for j := i; j < i+4; j++ {
			xs = append(xs, valueExec(j))
		}
		if err := db.Commit(&Batch{Executions: xs}); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	two, err := Open(path, Options{ReadOnly: true})
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
	if err := CheckInvariants(one); err != nil {
		t.Fatal(err)
	}
	vs, err := one.Versions("/p#a")
	if err != nil || len(vs) != 1 {
		t.Fatal(vs, err)
	}
	if vs[0].Claims != 12 || vs[0].OverClaims != 3 {
		t.Errorf("claims %d, over-claims %d; want 12 and 3 (every fourth test run failed)", vs[0].Claims, vs[0].OverClaims)
	}
}

// A commit that fails after it added vectors to a skill's novelty cache
// leaves no trace of them: the transaction is rolled back, and the next
// commit's values are those of a database that never saw the failed one
// (the cache is changed in place, and dropped on failure).
func TestValueAfterFailedCommit(t *testing.T) {
	clean, _ := openTest(t, Options{})
	failed, _ := openTest(t, Options{})
	for i := 0; i < 5; i++ {
		for _, db := range []*DB{clean, failed} {
			if err := db.Commit(&Batch{Executions: []record.Scored{valueExec(i)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// An empty transcript path is a key bbolt refuses: the commit fails
	// after the executions' values were computed.
	bad := &Batch{Executions: []record.Scored{valueExec(5), valueExec(6)}, Transcripts: []record.TranscriptOffset{{Path: ""}}}
	if err := failed.Commit(bad); err == nil {
		t.Fatal("a commit with an empty transcript key succeeded")
	}
	if _, err := failed.Execution(valueExec(5).Exec.ID); err == nil {
		t.Fatal("the failed commit's execution is stored")
	}
	for i := 5; i < 9; i++ {
		for _, db := range []*DB{clean, failed} {
			if err := db.Commit(&Batch{Executions: []record.Scored{valueExec(i)}}); err != nil {
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
