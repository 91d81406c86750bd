package status

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// execution1 is one scored execution of skill s.
func execution1() record.Scored {
	at := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	x := execution.Execution{ID: "a1", SessionID: "sess-shop", Skill: "s", Kind: "skill", Project: "/home/ana/src/shop",
		StartedAt: at, EndedAt: at.Add(2 * time.Second), Complete: true, Events: 4, Prompt: "do it"}
	r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: 70, Grade: fitness.GradeOf(70)}
	return record.Scored{Exec: x, Result: r}
}

func TestStatusSpoolLag(t *testing.T) {
	home := t.TempDir()
	spool := filepath.Join(home, "events.jsonl")
	if err := os.WriteFile(spool, []byte("a\nb\nc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "events.fallback.jsonl"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Commit(&store.Batch{Offsets: []record.Offset{{File: spool, Offset: 2}}, EventCounts: map[string]int64{"Stop": 1},
		Executions: []record.Scored{execution1()}}); err != nil {
		t.Fatal(err)
	}
	st, err := Get(db, home, Daemon{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Spool) != 2 || st.Spool[0].File != filepath.Join(home, "events.fallback.jsonl") || st.Spool[1].File != spool {
		t.Fatalf("spool %+v", st.Spool)
	}
	if f := st.Spool[1]; f.Offset != 2 || f.Size != 6 || f.LagBytes != 4 || f.LagEvents != 2 {
		t.Errorf("spool file %+v", f)
	}
	if st.LagEvents != 3 || st.LagBytes != 6 || st.Executions != 1 || st.Skills != 1 || st.Events["Stop"] != 1 || st.Daemon.Running {
		t.Errorf("status %+v", st)
	}
	none, err := Get(nil, t.TempDir(), Daemon{})
	if err != nil || none.DatabaseBytes != 0 || len(none.Spool) != 0 {
		t.Errorf("no database: %+v %v", none, err)
	}
}
