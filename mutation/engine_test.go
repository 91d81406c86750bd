package mutation

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/safety"
	"github.com/sepad/sepad/store"
)

// engineRig is an engine over a real store and a real project with one
// skill file, fed scored executions as the collector feeds them.
type engineRig struct {
	t     *testing.T
	db    *store.DB
	e     *Engine
	proj  string
	skill string
	n     int
	now   time.Time
}

func newEngineRig(t *testing.T, o EngineOptions) *engineRig {
	t.Helper()
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	skill := filepath.Join(proj, ".claude", "skills", "deploy", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	db, err := store.Open(filepath.Join(dir, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &engineRig{t: t, db: db, proj: proj, skill: skill, now: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)}
	o.Now = func() time.Time { return r.now }
	if o.ExtraRoots == nil {
		o.ExtraRoots = []string{proj}
	}
	o.Debounce = 20 * time.Millisecond
	r.e = NewEngine(db, o)
	if err := r.e.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r.e.Close()
		if err := store.CheckInvariants(db); err != nil {
			t.Error(err)
		}
		db.Close()
	})
	return r
}

// write puts body in the skill file and waits until the engine recorded it
// as a version.
func (r *engineRig) write(body string) string {
	r.t.Helper()
	if err := os.WriteFile(r.skill, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
	h := promptfile.Hash([]byte(body))
	for i := 0; i < 200; i++ {
		if sk, err := r.db.Skills(); err == nil {
			for _, s := range sk {
				for _, v := range s.Versions {
					if v.Hash == h {
						return h
					}
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("version %s never recorded", h)
	return ""
}

// run commits one scored execution of version and lets the engine see it.
func (r *engineRig) run(version string, score float64) {
	r.t.Helper()
	r.runOn(version, score)
}

// runOn commits one scored execution of version answered by models.
func (r *engineRig) runOn(version string, score float64, models ...string) {
	r.t.Helper()
	r.n++
	r.now = r.now.Add(time.Minute)
	x := execution.Execution{ID: fmt.Sprintf("e%011d", r.n), SessionID: "s", Skill: "deploy", Kind: "skill", Project: r.proj,
		SkillPath: r.skill, SkillVersion: version, StartedAt: r.now, EndedAt: r.now.Add(time.Second), Complete: true,
		Calls: []execution.ToolCall{{Name: "Bash", Done: true}}}
	if len(models) > 0 {
		x.Usage = &execution.Usage{Messages: 1, Models: models, CostKnown: true}
	}
	b := store.Batch{Executions: []record.Scored{{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: score, Grade: fitness.GradeOf(score)}}}}
	if err := r.db.Commit(&b); err != nil {
		r.t.Fatal(err)
	}
	r.e.Observe(b.Executions)
}

func (r *engineRig) records() []Record {
	r.t.Helper()
	ds, err := r.db.Decisions("", 0)
	if err != nil {
		r.t.Fatal(err)
	}
	var out []Record
	for i := len(ds) - 1; i >= 0; i-- {
		var rec Record
		if err := json.Unmarshal(ds[i].Payload, &rec); err != nil {
			r.t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// TestAcceptedVersionGradedFRollsBack: the safety rules watch the baseline
// too. An accepted version that later degrades to an F grade is rolled
// back to the best earlier version graded above F.
func TestAcceptedVersionGradedFRollsBack(t *testing.T) {
	o := EngineOptions{Decide: decide.Options{Method: decide.MethodSepa, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2},
		AutoRollback: true, RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 0.5, Cooldown: 0, GradeMin: 3, RollbackEdits: RollbackEditsAuto}
	r := newEngineRig(t, o)
	v1body := "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	for i := 0; i < 5; i++ {
		r.run(v1, 70)
	}
	v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks in parallel, deploy, verify.\n")
	for i := 0; i < 5; i++ {
		r.run(v2, 90)
	}
	recs := r.records()
	if len(recs) == 0 || recs[len(recs)-1].Rule != "significant_improvement" {
		t.Fatalf("v2 not accepted: %+v", recs)
	}
	// v2 is the baseline and healthy for a while (the engine's fast path
	// for baseline executions is taken) ...
	for i := 0; i < 10; i++ {
		r.run(v2, 88)
	}
	if b, _ := os.ReadFile(r.skill); promptfile.Hash(b) != v2 || len(r.records()) != 1 {
		t.Fatalf("a healthy baseline was touched: %+v", r.records())
	}
	// ... then degrades: its aggregate falls below 50 (F).
	for i := 0; i < 12; i++ {
		r.run(v2, 20)
	}
	b, _ := os.ReadFile(r.skill)
	if string(b) != v1body {
		t.Fatalf("the F-grade baseline was not rolled back to v1:\n%s\ndecisions: %+v", b, r.records())
	}
	last := r.records()[len(r.records())-1]
	if last.Kind != KindRollback || last.Rule != safety.RuleGradeF && last.Rule != safety.RuleBelowRatio || last.From != v2 || last.To != v1 || !last.Applied {
		t.Fatalf("last record %+v", last)
	}
}

// TestVersionSampleAggregateEqualsCompute: the engine's incremental
// aggregate of a version equals aggregate.Compute over all its scores, for
// histories shorter and longer than the window and than what it keeps; it
// keeps at most 2·keep scores however many it was given, and a decision
// from its sample equals one from the whole history.
func TestVersionSampleAggregateEqualsCompute(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 7))
	for _, c := range []struct {
		o    aggregate.Options
		keep int
	}{{aggregate.DefaultOptions(), 0}, {aggregate.Options{Weights: []float64{1, 0.5}, Trim: 0.2, MinSamples: 5, Window: 7}, 60}} {
		o := c.o
		v := &versionSample{o: o, keep: c.keep}
		var all []float64 // newest first
		for i := 0; i < 1000; i++ {
			sc := math.Round(rnd.Float64()*10000) / 100
			v.add(&record.Scored{Exec: execution.Execution{Calls: []execution.ToolCall{{Name: "Bash", Done: true}}},
				Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: sc}})
			all = append([]float64{sc}, all...)
			want, _ := aggregate.Compute(all, o)
			if got := v.aggregate(); got != want {
				t.Fatalf("window %d, after %d scores: %+v, Compute %+v", o.Window, i+1, got, want)
			}
			keep := max(c.keep, 1)
			if c.keep == 0 {
				keep = keepDefault
			}
			kept := v.newestFirst()
			if len(kept) != min(i+1, 2*keep) || len(kept)+v.omitted() != i+1 || cap(v.first) > 2*keep || cap(v.last) > 2*keep {
				t.Fatalf("after %d scores: %d kept, %d omitted, caps %d %d", i+1, len(kept), v.omitted(), cap(v.first), cap(v.last))
			}
			// The kept scores are the newest and the oldest, in order.
			n := min(len(kept), keep)
			if !slices.Equal(kept[:n], all[:n]) || !slices.Equal(kept[len(kept)-n:], all[len(all)-n:]) {
				t.Fatalf("after %d scores: kept %v, all %v", i+1, kept, all)
			}
			if i%97 == 0 || i == 999 {
				// A baseline and a candidate with these scores are decided
				// the same from the kept ones as from all.
				d := decide.DefaultOptions()
				d.MaxSamples = min(keep, 60)
				full := decide.Sample{Scores: all, Mean: 50, SD: 10}
				part := decide.Sample{Scores: kept, Omitted: v.omitted(), Mean: 50, SD: 10}
				ref := decide.Sample{Scores: all[:len(all)/2+1], Mean: 50, SD: 10}
				if a, b := decide.Decide("k", "b", "c", ref, full, d), decide.Decide("k", "b", "c", ref, part, d); !reflect.DeepEqual(stripScores(a), stripScores(b)) {
					t.Fatalf("after %d scores, as the candidate: %+v from all, %+v from the kept", i+1, a, b)
				}
				if a, b := decide.Decide("k", "b", "c", full, ref, d), decide.Decide("k", "b", "c", part, ref, d); !reflect.DeepEqual(stripScores(a), stripScores(b)) {
					t.Fatalf("after %d scores, as the baseline: %+v from all, %+v from the kept", i+1, a, b)
				}
			}
		}
	}
}

// stripScores drops what Decide was given but does not record.
func stripScores(d decide.Decision) decide.Decision {
	d.Baseline.Scores, d.Candidate.Scores, d.Baseline.Omitted, d.Candidate.Omitted = nil, nil, 0, 0
	return d
}

// The engine keeps enough of each version's scores for every skill's
// max_samples, overrides included.
func TestEngineKeepsMaxSamples(t *testing.T) {
	seven := 700
	for _, c := range []struct {
		o    EngineOptions
		want int
	}{
		{EngineOptions{}, keepDefault},
		{EngineOptions{Decide: decide.Options{MaxSamples: 500}}, 500},
		{EngineOptions{Decide: decide.Options{MinSamples: 300, MaxSamples: 20}}, 300},
		{EngineOptions{Decide: decide.Options{MaxSamples: 500}, Skills: map[string]Override{"deploy": {MaxSamples: &seven}}}, 700},
	} {
		if got := NewEngine(nil, c.o).keep; got != c.want {
			t.Errorf("%+v: keeps %d, want %d", c.o.Decide, got, c.want)
		}
	}
}
