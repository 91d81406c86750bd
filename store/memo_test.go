package store

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
)

// TestLiteMemoFollowsWrites: the listings' memo of decoded versions never
// answers with a version's old aggregate: after every commit, SkillsByKey
// (memoised) equals Skills (decoded afresh), and the memo holds one entry
// per version.
func TestLiteMemoFollowsWrites(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "sepa.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	prev := map[string]float64{}
	for i := 0; i < 12; i++ {
		ver := []string{"aaaaaaaaaaaa", "bbbbbbbbbbbb"}[i%2]
		x := execution.Execution{ID: fmt.Sprintf("m%011d", i), SessionID: "s", Skill: "a", Kind: "skill", Project: "/p",
			SkillPath: "/p/a/SKILL.md", SkillVersion: ver, StartedAt: t0.Add(time.Duration(i) * time.Minute),
			Calls: []execution.ToolCall{{Name: "Read", Failed: i%3 == 0}}}
		r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: float64(20 + 7*i)}
		if err := db.Commit(&Batch{Executions: []record.Scored{{Exec: x, Result: r}}}); err != nil {
			t.Fatal(err)
		}
		all, err := db.Skills()
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.SkillsByKey([]string{"/p/a/SKILL.md"})
		if err != nil || len(got) != 1 || len(all) != 1 {
			t.Fatalf("commit %d: %d %d %v", i, len(got), len(all), err)
		}
		for j, v := range all[0].Versions {
			g := got[0].Versions[j]
			if !reflect.DeepEqual(g.Aggregate, v.Aggregate) || g.FailRate != v.FailRate || g.Hash != v.Hash || g.Seq != v.Seq {
				t.Fatalf("commit %d, %s: memoised %+v, fresh %+v", i, v.Hash, g, v)
			}
		}
		for _, v := range got[0].Versions {
			if v.Hash == ver {
				if p, ok := prev[ver]; ok && v.Aggregate.Value == p {
					t.Fatalf("commit %d: %s's aggregate did not move (%v)", i, ver, p)
				}
				prev[ver] = v.Aggregate.Value
			}
		}
	}
	if n := len(db.lite.m); n != 2 {
		t.Errorf("memo holds %d versions, want 2", n)
	}
}
