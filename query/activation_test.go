package query

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// The activation of a skill, from a real store: three versions, the
// second editing the body only, the third the description; the model
// picks the skill more often under the third. Each version row carries
// its description version's counts and its own, and the third the
// comparison on activation; grades' row of the skill is the third's.
func TestActivationRows(t *testing.T) {
	db := openDB(t)
	texts := [][]byte{
		[]byte("---\nname: deploy\ndescription: Deploy.\n---\nDo it.\n"),
		[]byte("---\nname: deploy\ndescription: Deploy.\n---\nDo it well.\n"),
		[]byte("---\nname: deploy\ndescription: Deploy the app to staging or production. Use when asked to ship.\n---\nDo it well.\n"),
	}
	hashes := make([]string, len(texts))
	for i, c := range texts {
		hashes[i] = fmt.Sprintf("%x", sha256.Sum256(c))[:12]
		if _, err := db.PutVersion(record.Skill{Key: deployPath, Name: "deploy", Kind: "skill", Project: shop, Path: deployPath},
			record.Version{Hash: hashes[i], ContentKnown: true, Content: c, FirstSeen: t0, Source: "edit"}); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	run := func(v int, by string, missed bool) {
		n++
		s := scored(ex{id: fmt.Sprintf("x%011d", n), skill: "deploy", project: shop, path: deployPath, version: hashes[v], score: 80, at: time.Duration(n) * time.Minute})
		s.Exec.InvokedBy, s.Exec.MissedActivation = by, missed
		if err := db.Commit(&store.Batch{Executions: []record.Scored{s}}); err != nil {
			t.Fatal(err)
		}
	}
	// Under the first description: picked 2 of 20 chances (v1 and v2).
	for i := 0; i < 9; i++ {
		run(0, "user", true)
		run(1, "user", true)
	}
	run(1, "claude", false)
	run(1, "claude", false)
	run(0, "user", false) // typed at a session's start: no chance
	// Under the second: picked 20 of 20.
	for i := 0; i < 20; i++ {
		run(2, "claude", false)
	}
	vs, err := ListVersions(db, "deploy")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs.Versions) != 3 {
		t.Fatalf("%d versions", len(vs.Versions))
	}
	byVer := map[int]*ActivationRow{}
	for _, r := range vs.Versions {
		if r.Activation == nil {
			t.Fatalf("v%d has no activation", r.Version)
		}
		byVer[r.Version] = r.Activation
	}
	first := activation.Counts{Claude: 2, User: 19, Missed: 18}
	if a := byVer[1]; a.Since != 1 || a.Counts != first || a.Version != (activation.Counts{User: 10, Missed: 9}) || a.Comparison != nil {
		t.Errorf("v1: %+v", a)
	}
	if a := byVer[2]; a.Since != 1 || a.Counts != first || a.Version != (activation.Counts{Claude: 2, User: 9, Missed: 9}) || a.Rate == nil || *a.Rate != 0.1 {
		t.Errorf("v2: %+v", a)
	}
	a := byVer[3]
	if a.Since != 3 || a.Counts != (activation.Counts{Claude: 20}) || a.Description == byVer[1].Description {
		t.Errorf("v3: %+v", a)
	}
	if c := a.Comparison; c == nil || c.Verdict != activation.Better || c.Baseline != 1 || c.Candidate != 3 || c.BaselineN != 20 || c.CandidateN != 20 {
		t.Errorf("v3's comparison: %+v", c)
	}
	g, err := ListGrades(db, GradesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Grades) != 1 || g.Grades[0].Activation == nil || g.Grades[0].Activation.Since != 3 ||
		!strings.Contains(g.Grades[0].Activation.Comparison.Words, "picked more often") {
		t.Errorf("grades row: %+v", g.Grades)
	}
	// Fitness is untouched: every run scored 80.
	if r := g.Grades[0]; r.Aggregate == nil || *r.Aggregate != 80 || r.Change == nil || *r.Change != 0 {
		t.Errorf("the aggregate moved with activation: %v", r.Aggregate)
	}
}
