package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/sepad/sepad/record"
)

func TestPruneKeepsAggregates(t *testing.T) {
	db, _ := openTest(t, Options{}) // checks the invariants at the end
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// An execution is pruned when it ran and was stored before the time:
	// a first commit (deploy's first five, triage's), then, after the
	// time, a second one (deploy's last five, run just as long ago).
	var b Batch
	for i := 0; i < 5; i++ {
		b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", i), "deploy", "aaaaaaaaaaaa", float64(60+i), t0.Add(time.Duration(i)*24*time.Hour)))
	}
	b.Executions = append(b.Executions, scored("b00000000000", "triage", "cccccccccccc", 40, t0))
	b.Quarantine = []record.QuarantineEntry{{File: "/s", Raw: []byte("secret=1"), Reason: "not JSON", Time: t0}, {File: "/s", Raw: []byte("x"), Reason: "not JSON", Time: time.Now().Add(time.Hour)}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	cut := time.Now()
	time.Sleep(10 * time.Millisecond)
	b = Batch{}
	for i := 5; i < 10; i++ {
		b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", i), "deploy", "aaaaaaaaaaaa", float64(60+i), t0.Add(time.Duration(i)*24*time.Hour)))
	}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	deploy := "/p/.claude/skills/deploy/SKILL.md"
	before, err := db.Skill(deploy)
	if err != nil {
		t.Fatal(err)
	}
	// PruneCount says the same numbers and removes nothing.
	count, err := db.PruneCount(cut)
	if err != nil || count.Executions != 6 || count.Quarantined != 1 {
		t.Errorf("PruneCount %+v %v, want 6 executions and 1 quarantined line", count, err)
	}
	if st, _ := db.Stats(); st.Executions != 11 {
		t.Errorf("PruneCount removed executions: %+v", st)
	}
	got, err := db.Prune(cut)
	if err != nil {
		t.Fatal(err)
	}
	if got.Executions != 6 || got.Quarantined != 1 {
		t.Errorf("pruned %+v, want 6 executions (5 of deploy, triage's) and 1 quarantined line", got)
	}
	after, err := db.Skill(deploy)
	if err != nil {
		t.Fatal(err)
	}
	if after.Versions[0].Aggregate != before.Versions[0].Aggregate || after.Versions[0].Aggregate.N != 10 {
		t.Errorf("the aggregate changed: %+v, was %+v", after.Versions[0].Aggregate, before.Versions[0].Aggregate)
	}
	xs, _ := db.Executions(record.Filter{SkillKey: deploy, Version: "aaaaaaaaaaaa"})
	if len(xs) != 5 || xs[len(xs)-1].Exec.ID != "a00000000005" {
		t.Errorf("kept %v", ids(xs))
	}
	if st, _ := db.Stats(); st.Executions != 5 || st.QuarantineKept != 1 {
		t.Errorf("stats %+v", st)
	}
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	// New executions of a pruned version still add to its aggregate.
	if err := db.Commit(&Batch{Executions: []record.Scored{scored("a00000000099", "deploy", "aaaaaaaaaaaa", 99, t0.Add(30*24*time.Hour))}}); err != nil {
		t.Fatal(err)
	}
	if sk, _ := db.Skill(deploy); sk.Versions[0].Aggregate.N != 11 {
		t.Errorf("N %d after a new execution, want 11", sk.Versions[0].Aggregate.N)
	}
}
