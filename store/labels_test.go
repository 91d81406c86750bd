package store

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
)

// TestLabelsKeptNewestFirst: labels never overwrite one another, take
// seqs from the commit order, and without a rescore change nothing else.
func TestLabelsKeptNewestFirst(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b := Batch{Executions: []record.Scored{scored("a00000000001", "deploy", "aaaaaaaaaaaa", 70, t0), scored("a00000000002", "deploy", "aaaaaaaaaaaa", 80, t0)}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	for i, out := range []string{reward.Success, reward.Failure, reward.Success} {
		l, err := reward.New("a00000000001", reward.Input{Outcome: out, Rater: fmt.Sprint("r", i)}, t0.Add(time.Duration(i)*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		ap, err := db.PutLabel(l, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ap.Label.Seq != uint64(3+i) || ap.Rescored || ap.Execution.Result.Score != 70 {
			t.Errorf("label %d: %+v", i, ap)
		}
	}
	ls, err := db.Labels("a00000000001")
	if err != nil || len(ls) != 3 || ls[0].Rater != "r2" || ls[2].Rater != "r0" || ls[1].Outcome != reward.Failure {
		t.Fatalf("labels %+v %v", ls, err)
	}
	if ls, _ := db.Labels("a00000000002"); len(ls) != 0 {
		t.Errorf("another execution's labels: %+v", ls)
	}
	if _, err := db.PutLabel(reward.Label{ExecutionID: "nope", Outcome: reward.Success}, nil); !errors.Is(err, ErrNotFound) {
		t.Errorf("label of a missing execution: %v", err)
	}
	// A later execution comes after the labels in the commit order.
	b = Batch{Executions: []record.Scored{scored("a00000000003", "deploy", "aaaaaaaaaaaa", 90, t0)}}
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if b.Executions[0].Seq != 6 {
		t.Errorf("execution after three labels has seq %d, want 6", b.Executions[0].Seq)
	}
	// Forgetting the skill forgets its labels.
	if _, err := db.ForgetSkill(b.Executions[0].SkillKey); err != nil {
		t.Fatal(err)
	}
	if ls, _ := db.Labels("a00000000001"); len(ls) != 0 {
		t.Errorf("labels of a forgotten skill: %+v", ls)
	}
}

// TestLabelRescores: a rescore that changes the result updates the stored
// execution and its version's aggregate, which then equals a recount
// (CheckInvariants at cleanup), also for an execution that was unscored.
func TestLabelRescores(t *testing.T) {
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b Batch
	for i, sc := range []float64{70, 80, 90, 60} {
		b.Executions = append(b.Executions, scored(fmt.Sprintf("a%011d", i), "deploy", "aaaaaaaaaaaa", sc, t0.Add(time.Duration(i)*time.Minute)))
	}
	un := scored("u00000000000", "deploy", "aaaaaaaaaaaa", 0, t0)
	un.Result = fitness.Result{RubricVersion: fitness.RubricVersion}
	b.Executions = append(b.Executions, un)
	if err := db.Commit(&b); err != nil {
		t.Fatal(err)
	}
	key := b.Executions[0].SkillKey
	setScore := func(v float64) func(fitness.Result, reward.Label) fitness.Result {
		return func(r fitness.Result, _ reward.Label) fitness.Result {
			r.Scored, r.Score, r.Grade = true, v, fitness.GradeOf(v)
			return r
		}
	}
	agg := func() float64 {
		sk, err := db.Skill(key)
		if err != nil {
			t.Fatal(err)
		}
		return sk.Versions[0].Aggregate.Mean
	}
	if m := agg(); m != 75 {
		t.Fatalf("mean before %v", m)
	}
	ap, err := db.PutLabel(reward.Label{ExecutionID: "a00000000001", Outcome: reward.Failure}, setScore(20))
	if err != nil || !ap.Rescored || ap.Before.Score != 80 || ap.Execution.Result.Score != 20 {
		t.Fatalf("rescored %+v %v", ap, err)
	}
	if m := agg(); m != 60 {
		t.Errorf("mean after the label %v, want (70+20+90+60)/4 = 60", m)
	}
	s, _ := db.Execution("a00000000001")
	if s.Result.Score != 20 {
		t.Errorf("stored score %v", s.Result.Score)
	}
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutLabel(reward.Label{ExecutionID: "u00000000000", Outcome: reward.Success}, setScore(100)); err != nil {
		t.Fatal(err)
	}
	if m, n := agg(), 5; m != 68 {
		t.Errorf("mean with the labelled unscored execution %v over %d, want 68", m, n)
	}
	// A rescore that changes nothing writes nothing but the label.
	ap, err = db.PutLabel(reward.Label{ExecutionID: "a00000000002", Outcome: reward.Success}, func(r fitness.Result, _ reward.Label) fitness.Result { return r })
	if err != nil || ap.Rescored {
		t.Errorf("unchanged: %+v %v", ap, err)
	}
}
