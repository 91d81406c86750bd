package store

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/record"
)

// The outbox yields every stored execution once, oldest first, in
// batches from the cursor; the cursor survives a reopen and never moves
// back.
func TestOutboxCursor(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sepa.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		b := &Batch{}
		for j := 0; j < 4; j++ {
			b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", i*4+j), "deploy", "aaaaaaaaaaaa", 70, t0.Add(time.Duration(i*4+j)*time.Minute)))
		}
		if err := db.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	st, err := db.Outbox("team")
	if err != nil || st.Pending != 12 || st.Cursor != 0 || st.Last != 12 {
		t.Fatalf("fresh outbox: %+v %v", st, err)
	}
	var seen []uint64
	var cur uint64
	for {
		batch, err := db.OutboxNext(cur, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(batch) == 0 {
			break
		}
		for _, s := range batch {
			if s.Seq <= cur {
				t.Fatalf("seq %d at or before the cursor %d", s.Seq, cur)
			}
			seen = append(seen, s.Seq)
			cur = s.Seq
		}
		if err := db.OutboxAdvance("team", cur, len(batch)); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 12 {
		t.Fatalf("shipped %v, want 12 executions once each", seen)
	}
	for i, s := range seen {
		if s != uint64(i+1) {
			t.Fatalf("order %v, want 1..12", seen)
		}
	}
	if err := db.OutboxAdvance("team", 3, 0); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err = db.Outbox("team")
	if err != nil || st.Cursor != 12 || st.Shipped != 12 || st.Pending != 0 {
		t.Fatalf("after reopen: %+v %v, want cursor 12, shipped 12, pending 0", st, err)
	}
	if err := db.PutDecision("k", time.Now(), map[string]string{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	ds, err := db.OutboxDecisions(0)
	if err != nil || len(ds) != 1 {
		t.Fatalf("decisions: %v %v", ds, err)
	}
	if err := db.OutboxAdvanceDecisions("team", ds[0].Seq); err != nil {
		t.Fatal(err)
	}
	if ds, _ := db.OutboxDecisions(ds[0].Seq); len(ds) != 0 {
		t.Fatalf("decisions after the cursor: %v", ds)
	}
}

// OutboxSend moves a consumer's cursors only past what its sends took: a
// refused batch is offered again, whole, and each consumer has its own
// cursors.
func TestOutboxSend(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "sepa.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := &Batch{}
	for j := 0; j < 7; j++ {
		b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", j), "deploy", "aaaaaaaaaaaa", 70, t0.Add(time.Duration(j)*time.Minute)))
	}
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
	if err := db.PutDecision("k", t0, map[string]string{"x": "y"}); err != nil {
		t.Fatal(err)
	}
	refuse := fmt.Errorf("refused")
	var got []string
	var decisions int
	take := func(xs []record.Scored) error {
		for _, x := range xs {
			got = append(got, x.Exec.ID)
		}
		return nil
	}
	takeD := func(ds []record.Decision) error { decisions += len(ds); return nil }
	// Refused executions: nothing moves, the decisions wait behind them.
	if n, err := db.OutboxSend("a", 5, func([]record.Scored) error { return refuse }, takeD); err != refuse || n != 0 || decisions != 0 {
		t.Fatalf("refused: %d %v, %d decisions", n, err, decisions)
	}
	// Refused decisions: the executions' cursor moved, the decisions' not.
	if n, err := db.OutboxSend("a", 5, take, func([]record.Decision) error { return refuse }); err != refuse || n != 5 {
		t.Fatalf("decisions refused: %d %v", n, err)
	}
	if st, _ := db.Outbox("a"); st.Cursor != 5 || st.Shipped != 5 || st.DecisionCursor != 0 {
		t.Fatalf("after a refused decision: %+v", st)
	}
	if n, err := db.OutboxSend("a", 5, take, takeD); err != nil || n != 2 || decisions != 1 {
		t.Fatalf("the rest: %d %v, %d decisions", n, err, decisions)
	}
	if n, err := db.OutboxSend("a", 5, take, takeD); err != nil || n != 0 || decisions != 1 {
		t.Fatalf("nothing left: %d %v, %d decisions", n, err, decisions)
	}
	if len(got) != 7 || got[0] != "a00000000000" || got[6] != "a00000000006" {
		t.Fatalf("sent %v, want the 7 executions once each, in order", got)
	}
	// Another consumer starts from the beginning.
	if st, _ := db.Outbox("b"); st.Cursor != 0 || st.Pending != 7 {
		t.Fatalf("consumer b: %+v", st)
	}
}
