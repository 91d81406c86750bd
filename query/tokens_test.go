package query

import (
	"fmt"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// A version's tokens and cost are in its grade row, and the change of its
// mean tokens from the older graded version beside the score's change.
func TestGradesTokens(t *testing.T) {
	db, err := store.Open(t.TempDir()+"/sepa.db", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n := 0
	for _, vt := range []struct {
		v      string
		tokens int64
	}{{"aaaaaaaaaaaa", 1000}, {"bbbbbbbbbbbb", 1180}} { // v1, then v2
		v, tokens := vt.v, vt.tokens
		for i := 0; i < 3; i++ {
			n++
			at := n
			if v == "bbbbbbbbbbbb" {
				at += 10
			}
			s := scored(ex{id: fmt.Sprintf("t%011d", at), skill: "deploy", project: shop, path: deployPath, version: v, score: 80, at: 0})
			s.Exec.StartedAt = t0.Add(time.Duration(at) * time.Minute)
			s.Exec.EndedAt = s.Exec.StartedAt.Add(time.Second)
			s.Exec.Usage = &execution.Usage{InputTokens: tokens - 200, OutputTokens: 100, CacheReadTokens: 100, Messages: 1, CostNanoUSD: tokens * 1000, CostKnown: true}
			if err := db.Commit(&store.Batch{Executions: []record.Scored{s}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	g, err := ListGrades(db, GradesRequest{AllVersions: true})
	if err != nil {
		t.Fatal(err)
	}
	byHash := map[string]GradeRow{}
	for _, r := range g.Grades {
		byHash[r.Hash] = r
	}
	a, b := byHash["aaaaaaaaaaaa"], byHash["bbbbbbbbbbbb"]
	if a.Tokens == nil || a.Tokens.N != 3 || a.Tokens.Total != 3000 || a.Tokens.Mean != 1000 || a.Tokens.MeanCostUSD != 0.001 {
		t.Fatalf("v1 tokens %+v", a.Tokens)
	}
	if b.Tokens == nil || b.Tokens.Mean != 1180 || b.TokenChange == nil || *b.TokenChange != 0.18 || b.Tokens.CacheHitRate != 0.0926 {
		t.Errorf("v2 tokens %+v change %v", b.Tokens, b.TokenChange)
	}
}

// A decision shows the cost difference beside the score difference.
func TestDecisionCost(t *testing.T) {
	db, err := store.Open(t.TempDir()+"/sepa.db", store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var key string
	for v, tokens := range map[string]int64{"aaaaaaaaaaaa": 1000, "bbbbbbbbbbbb": 1180} {
		s := scored(ex{id: "d" + v[:11], skill: "deploy", project: shop, path: deployPath, version: v, score: 80})
		s.Exec.Usage = &execution.Usage{InputTokens: tokens, Messages: 1, CostNanoUSD: tokens * 1000, CostKnown: true}
		key = s.Exec.Key()
		if err := db.Commit(&store.Batch{Executions: []record.Scored{s}}); err != nil {
			t.Fatal(err)
		}
	}
	payload := map[string]any{"kind": "decision", "skill": "deploy", "decision": map[string]any{"outcome": "accept", "delta": 4.1,
		"baseline": map[string]any{"hash": "aaaaaaaaaaaa"}, "candidate": map[string]any{"hash": "bbbbbbbbbbbb"}}}
	if err := db.PutDecision(key, t0, payload); err != nil {
		t.Fatal(err)
	}
	ds, err := ListDecisions(db, "", 10)
	if err != nil || len(ds.Decisions) != 1 {
		t.Fatalf("decisions %+v %v", ds, err)
	}
	c := ds.Decisions[0].Cost
	if c == nil || c.Words != "+4.1 points, +18% tokens, +18% cost" || *c.TokenChange != 0.18 {
		t.Errorf("cost %+v", c)
	}
}
