package mutation

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// After a restart the engine rebuilds a version's sample from the store
// (store.EachOfVersion: oldest first, in chunks of 512, so that a long
// history is never decoded at once). The sample equals the one built
// live from every execution in commit order, for the whole history and
// up to an execution in its middle, with another version interleaved.
func TestSampleOfRebuiltInChunks(t *testing.T) {
	t.Parallel() // its own database: 1,300 executions committed, beside the other tests
	db, err := store.Open(filepath.Join(t.TempDir(), "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rnd := rand.New(rand.NewPCG(3, 3))
	t0 := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	const n = 1300 // three chunks
	var all []record.Scored
	for i := 0; i < n; i += 100 {
		var b store.Batch
		for j := i; j < i+100; j++ {
			version := "aaaaaaaaaaaa"
			if j%4 == 3 {
				version = "bbbbbbbbbbbb"
			}
			at := t0.Add(time.Duration(j) * time.Minute)
			x := execution.Execution{ID: fmt.Sprintf("e%011d", j), SessionID: fmt.Sprintf("s%d", j/10), Skill: "deploy", Kind: "skill",
				Project: "/p", SkillPath: "/p/.claude/skills/deploy/SKILL.md", SkillVersion: version, StartedAt: at, EndedAt: at.Add(time.Second),
				Complete: true, Output: "done", HasOutput: true}
			for c := 0; c < 1+j%5; c++ {
				x.Calls = append(x.Calls, execution.ToolCall{Name: "Bash", Done: true, Failed: (j+c)%3 == 0})
			}
			sc := math.Round(rnd.Float64()*10000) / 100
			r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: j%17 != 0, Score: sc, Grade: fitness.GradeOf(sc),
				Signals: []fitness.Signal{{Signal: fitness.SignalToolSuccess, Present: true, Value: sc / 100, SubScore: sc / 100, Weight: 1}}}
			b.Executions = append(b.Executions, record.Scored{Exec: x, Result: r})
		}
		if err := db.Commit(&b); err != nil {
			t.Fatal(err)
		}
		all = append(all, b.Executions...)
	}
	key := all[0].SkillKey
	for _, upto := range []uint64{n + 1, 777, 2} {
		e := NewEngine(db, EngineOptions{}) // a restarted engine: nothing cached
		got, err := e.sampleOf(key, "aaaaaaaaaaaa", upto)
		if err != nil {
			t.Fatal(err)
		}
		ao := db.AggregateOptions()
		want := &versionSample{o: ao, keep: max(e.keep, ao.Window), rubric: db.Rubric()}
		for i := range all {
			if all[i].Version == "aaaaaaaaaaaa" && all[i].Seq < upto {
				want.add(&all[i])
			}
		}
		if want.n == 0 && upto > 2 {
			t.Fatal("no scores")
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("before %d: rebuilt n %d mean %v calls %d, live n %d mean %v calls %d", upto, got.n, got.mean, got.calls, want.n, want.mean, want.calls)
		}
	}
}
