package store

import (
	"testing"
	"time"

	"github.com/sepad/sepad/record"
)

// TestExecutionScores: the scores alone, as ExecutionsLite has them, in
// the order asked, an unscored run without one, an unknown ID skipped.
func TestExecutionScores(t *testing.T) {
	db, _ := openTest(t, Options{})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	un := scored("b00000000002", "deploy", "aaaaaaaaaaaa", 0, at)
	un.Result.Scored, un.Result.Grade = false, ""
	b := Batch{Executions: []record.Scored{scored("a00000000001", "deploy", "aaaaaaaaaaaa", 72.5, at), un}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	ids := []string{"b00000000002", "nope", "a00000000001"}
	got, err := db.ExecutionScores(ids)
	if err != nil {
		t.Fatal(err)
	}
	lite, err := db.ExecutionsLite(ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(lite) != 2 {
		t.Fatalf("scores %+v, lite %d", got, len(lite))
	}
	for i, s := range got {
		l := lite[i]
		if s.ID != l.Exec.ID || s.Scored != l.Result.Scored || s.Score != l.Result.Score {
			t.Errorf("%d: %+v, lite %s %v %v", i, s, l.Exec.ID, l.Result.Scored, l.Result.Score)
		}
	}
	if got[0].Scored || !got[1].Scored || got[1].Score != 72.5 {
		t.Errorf("scores %+v", got)
	}
}
