package store

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestForgetSkill(t *testing.T) {
	db, _ := openTest(t, Options{}) // checks the invariants at the end
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Batch
	for i := 0; i < 6; i++ {
		b.Executions = append(b.Executions,
			scored(fmt.Sprintf("a%011d", i), "deploy", []string{"aaaaaaaaaaaa", "bbbbbbbbbbbb"}[i%2], float64(60+i), t0.Add(time.Duration(i)*time.Minute)),
			scored(fmt.Sprintf("b%011d", i), "triage", "cccccccccccc", float64(50+i), t0.Add(time.Duration(i)*time.Minute)))
	}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	deploy, triage := "/p/.claude/skills/deploy/SKILL.md", "/p/.claude/skills/triage/SKILL.md"
	if err := db.PutDecision(deploy, t0, map[string]string{"kind": "manual"}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutSkillState(deploy, []byte(`{"baseline":"aaaaaaaaaaaa"}`)); err != nil {
		t.Fatal(err)
	}
	got, err := db.ForgetSkill(deploy)
	if err != nil {
		t.Fatal(err)
	}
	if got != (Forgotten{Key: deploy, Executions: 6, Versions: 2, Decisions: 1}) {
		t.Errorf("forgot %+v", got)
	}
	if _, err := db.Skill(deploy); !errors.Is(err, ErrNotFound) {
		t.Errorf("the skill is still there: %v", err)
	}
	if st, _ := db.SkillState(deploy); len(st) != 0 {
		t.Errorf("engine state kept: %s", st)
	}
	if ds, _ := db.Decisions(deploy, 0); len(ds) != 0 {
		t.Errorf("decisions kept: %d", len(ds))
	}
	sk, err := db.Skill(triage)
	if err != nil || sk.Versions[0].Aggregate.N != 6 {
		t.Errorf("the other skill: %v %+v", err, sk)
	}
	if st, _ := db.Stats(); st.Executions != 6 {
		t.Errorf("%d executions counted, want 6", st.Executions)
	}
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ForgetSkill(deploy); !errors.Is(err, ErrNotFound) {
		t.Errorf("forgetting twice: %v", err)
	}
}
