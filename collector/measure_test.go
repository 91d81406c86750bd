package collector

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

func measureExec(i int) record.Scored {
	topics := []string{"deploy the shop to staging", "fix the failing cart test", "explain the parser"}
	x := execution.Execution{ID: fmt.Sprintf("m%011d", i), SessionID: fmt.Sprintf("s%d", i), Skill: "a", Kind: "skill", Project: "/p",
		SkillVersion: "aaaaaaaaaaaa", Prompt: topics[i%3], Output: "Done.", HasOutput: true, Complete: true,
		Calls: []execution.ToolCall{{Name: "Edit", Done: true}}}
	return record.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: 70}}
}

// An execution the store already holds (delivered again, or a second
// one with a taken ID) is not measured: the executions after it have the
// values they would have had without it, as when the store measured
// inside its commit.
func TestMeasureSkipsHeld(t *testing.T) {
	open := func() *Collector {
		db, err := store.Open(filepath.Join(t.TempDir(), "sepa.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return New(db, Options{})
	}
	commit := func(c *Collector, xs ...record.Scored) []record.Scored {
		b := store.Batch{Executions: xs}
		if err := c.commitBatch(&b); err != nil {
			t.Fatal(err)
		}
		return b.Executions
	}
	plain, replayed := open(), open()
	commit(plain, measureExec(0), measureExec(1))
	commit(replayed, measureExec(0), measureExec(1))
	want := commit(plain, measureExec(2), measureExec(3))
	got := commit(replayed, measureExec(1), measureExec(2), measureExec(2), measureExec(3))
	if got[0].Value != nil || got[2].Value != nil {
		t.Errorf("an execution the store holds was measured: %+v, %+v", got[0].Value, got[2].Value)
	}
	if got[1].Value == nil || !reflect.DeepEqual(got[1].Value, want[0].Value) || !reflect.DeepEqual(got[3].Value, want[1].Value) {
		t.Errorf("values after a replay %+v %+v, without %+v %+v", got[1].Value, got[3].Value, want[0].Value, want[1].Value)
	}
	if err := store.CheckInvariants(replayed.db); err != nil {
		t.Fatal(err)
	}
}
