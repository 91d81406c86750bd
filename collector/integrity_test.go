package collector

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// TestClaimsCheckedBeforeCommit: the collector checks each execution's
// claims (package integrity) with its score's outcome report before the
// commit, and the store keeps the report as it is: the generated answers
// claim "Fixed …", so every stored execution with that answer has an
// integrity report, and the aggregates count them (CheckInvariants).
func TestClaimsCheckedBeforeCommit(t *testing.T) {
	const n = 1500
	home := t.TempDir()
	var buf []byte
	for _, l := range benchLines(n) {
		buf = append(append(buf, l...), '\n')
	}
	if err := os.WriteFile(spool.Path(home), buf, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := New(db, Options{Home: home, Scorer: scorer, BatchLines: 500, RotateBytes: 1 << 40})
	if err := c.restore(); err != nil {
		t.Fatal(err)
	}
	for c.Stats().Lines < n {
		if err := c.step(false); err != nil {
			t.Fatal(err)
		}
	}
	claimed, checked := 0, 0
	err = db.Each(func(s *record.Scored, _ *reward.Label) error {
		if len(s.Exec.Output) > 10 && s.Exec.Output[:10] == "## Summary" {
			claimed++
			if r := s.Integrity; r != nil && len(r.Observations) > 0 && r.Observations[0].Claim == "fixed" {
				checked++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if claimed == 0 || checked != claimed {
		t.Errorf("%d of %d executions claiming a fix have an integrity report", checked, claimed)
	}
	if err := store.CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
}
