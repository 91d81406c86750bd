package query

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

func trendScores(pts []TrendPoint) string {
	s := ""
	for _, p := range pts {
		if p.Score == nil {
			s += fmt.Sprintf("v%d:- ", p.Version)
		} else {
			s += fmt.Sprintf("v%d:%.0f ", p.Version, *p.Score)
		}
	}
	return s
}

// TestOverview: the rows are ListGrades', and each skill's trend holds
// its newest runs across versions, oldest first, kept until new runs
// come.
func TestOverview(t *testing.T) {
	db := openDB(t, fixture()...)
	rows, err := Overview(db, 5)
	if err != nil {
		t.Fatal(err)
	}
	checkOverview(t, db, rows)
	trends := map[string][]TrendPoint{}
	for _, r := range rows {
		trends[r.SkillKey] = r.Trend
	}
	for key, w := range map[string]string{
		deployPath:       "v1:84 v2:60 v2:62 v2:55 v3:90 ",
		blog + "#deploy": "v1:91 ",
		shop + "#review": "v1:75 v1:- v1:77 v1:79 ",
	} {
		if got := trendScores(trends[key]); got != w {
			t.Errorf("%s: trend %q, want %q (keys %v)", key, got, w, len(trends))
		}
	}
	commit(t, db, ex{id: "e999" + "00000000", skill: "deploy", project: shop, path: deployPath, version: "cccccccccccc", score: 30, at: 0})
	rows, err = Overview(db, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if r.SkillKey == deployPath {
			if got := trendScores(r.Trend); got != "v2:60 v2:62 v2:55 v3:90 v3:30 " {
				t.Errorf("after a new run: %q", got)
			}
		}
	}
}

// checkOverview: rows are what ListGrades returns, row for row, and what
// an Overview computed afresh (nothing remembered) returns.
func checkOverview(t *testing.T, db *store.DB, rows []OverviewRow) {
	t.Helper()
	want, err := ListGrades(db, GradesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []GradeRow
	for _, r := range rows {
		got = append(got, r.GradeRow)
	}
	if !reflect.DeepEqual(got, want.Grades) {
		t.Fatalf("overview rows differ from ListGrades:\n%+v\n%+v", got, want.Grades)
	}
	// Afresh, then the memo as it was, so a caller's marks stay its own.
	overviewMemo.Lock()
	kept, keptMark := overviewMemo.rows, overviewMemo.mark
	overviewMemo.db = nil
	overviewMemo.Unlock()
	fresh, err := Overview(db, 5)
	if err != nil {
		t.Fatal(err)
	}
	overviewMemo.Lock()
	overviewMemo.rows, overviewMemo.mark = kept, keptMark
	overviewMemo.Unlock()
	for i := range fresh {
		fresh[i].Mark, rows[i].Mark = 0, 0
	}
	if !reflect.DeepEqual(rows, fresh) {
		t.Fatalf("remembered overview differs from a fresh one:\n%+v\n%+v", rows, fresh)
	}
}

// TestOverviewAfterEachWrite: after every kind of write the overview,
// which reads again only the skills written since it last looked, equals
// one computed afresh, and a skill untouched keeps its mark.
func TestOverviewAfterEachWrite(t *testing.T) {
	db := openDB(t, fixture()...)
	marks := func() map[string]uint64 {
		t.Helper()
		rows, err := Overview(db, 5)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]uint64{}
		for _, r := range rows {
			m[r.SkillKey] = r.Mark
		}
		checkOverview(t, db, rows)
		return m
	}
	marks()
	before := marks()
	n := 0
	for _, w := range []struct {
		what  string
		write func() error
		// same is a skill whose mark must not change.
		same string
	}{
		{"a run of an existing skill", func() error {
			n++
			return db.Commit(&store.Batch{Executions: []record.Scored{scored(ex{id: fmt.Sprintf("w%03d00000000", n), skill: "deploy", project: shop, path: deployPath, version: "cccccccccccc", score: 20, at: time.Hour})}})
		}, shop + "#review"},
		{"a new skill", func() error {
			return db.Commit(&store.Batch{Executions: []record.Scored{scored(ex{id: "new00000000", skill: "lint", project: blog, version: "ffffffffffff", score: 70, at: time.Hour})}})
		}, deployPath},
		{"the engine's state", func() error {
			return db.PutSkillState(deployPath, []byte(`{"baseline":"aaaaaaaaaaaa","candidate":"cccccccccccc","status":{"aaaaaaaaaaaa":"baseline","bbbbbbbbbbbb":"rejected","cccccccccccc":"candidate"}}`))
		}, shop + "#review"},
		{"a new version", func() error {
			_, err := db.PutVersion(record.Skill{Key: shop + "#review", Name: "review", Kind: "skill", Project: shop}, record.Version{Hash: "999999999999", Content: []byte("new"), Source: "mutation"})
			return err
		}, deployPath},
		{"a decision", func() error { return db.PutDecision(deployPath, t0, map[string]string{"kind": "promote"}) }, shop + "#review"},
		{"a label", func() error {
			_, err := db.PutLabel(reward.Label{ExecutionID: "e012" + "00000000", Outcome: "failure", Time: t0}, func(r fitness.Result, _ reward.Label) fitness.Result {
				r.Score, r.Grade = 10, fitness.GradeOf(10)
				return r
			})
			return err
		}, ""},
		{"forgetting a skill", func() error { _, err := db.ForgetSkill(blog + "#deploy"); return err }, deployPath},
		{"a prune", func() error { _, err := db.Prune(time.Now().Add(time.Minute)); return err }, ""},
	} {
		if err := w.write(); err != nil {
			t.Fatalf("%s: %v", w.what, err)
		}
		after := marks()
		if w.same != "" && after[w.same] != before[w.same] {
			t.Errorf("after %s, %s was read again", w.what, w.same)
		}
		before = after
	}
	if _, ok := before[blog+"#deploy"]; ok {
		t.Error("a forgotten skill is still on the overview")
	}
}
