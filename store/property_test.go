package store

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
)

// model is what the store should hold, kept by the test independently of
// the store's indexes.
type model struct {
	current map[string]string            // skill key -> current version
	ids     map[string][]string          // skill key NUL version -> IDs, newest first
	scores  map[string][]float64         // same key, current rubric's scored only, newest first
	seen    map[string]bool              // stored IDs
	skills  map[string]map[string]string // skill key -> version -> "" (set of versions)
	count   int
}

func newModel() *model {
	return &model{current: map[string]string{}, ids: map[string][]string{}, scores: map[string][]float64{},
		seen: map[string]bool{}, skills: map[string]map[string]string{}}
}

// add mirrors Commit's rules for one execution.
func (m *model) add(s record.Scored) {
	if m.seen[s.Exec.ID] {
		return
	}
	m.seen[s.Exec.ID] = true
	m.count++
	key := s.Exec.Key()
	ver := s.Exec.SkillVersion
	if ver == "" {
		ver = m.current[key]
	}
	if ver == "" {
		ver = "unknown"
	}
	if s.Exec.SkillVersion != "" {
		m.current[key] = s.Exec.SkillVersion
	}
	if m.skills[key] == nil {
		m.skills[key] = map[string]string{}
	}
	m.skills[key][ver] = ""
	k := key + "\x00" + ver
	m.ids[k] = append([]string{s.Exec.ID}, m.ids[k]...)
	if s.Result.Scored && s.Result.RubricVersion == fitness.RubricVersion {
		m.scores[k] = append([]float64{s.Result.Score}, m.scores[k]...)
	}
}

// check compares the store with the model: every version's aggregate
// equals aggregate.Compute over the model's scores, and every version's
// executions come newest first in the model's order.
func (m *model) check(t *testing.T, db *DB) {
	t.Helper()
	if err := CheckInvariants(db); err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats()
	if err != nil || int(st.Executions) != m.count {
		t.Fatalf("stats %+v (%v), model has %d executions", st, err, m.count)
	}
	skills, err := db.Skills()
	if err != nil || len(skills) != len(m.skills) {
		t.Fatalf("%d skills (%v), model has %d", len(skills), err, len(m.skills))
	}
	o := db.AggregateOptions()
	for _, sk := range skills {
		if len(sk.Versions) != len(m.skills[sk.Key]) {
			t.Fatalf("skill %s: %d versions, model %d", sk.Key, len(sk.Versions), len(m.skills[sk.Key]))
		}
		if sk.Current != m.current[sk.Key] {
			t.Errorf("skill %s: current %q, model %q", sk.Key, sk.Current, m.current[sk.Key])
		}
		for _, v := range sk.Versions {
			k := sk.Key + "\x00" + v.Hash
			want, _ := aggregate.Compute(m.scores[k], o)
			if v.Aggregate != want {
				t.Fatalf("%s@%s: aggregate %+v, model %+v (%d scores)", sk.Key, v.Hash, v.Aggregate, want, len(m.scores[k]))
			}
			xs, err := db.Executions(record.Filter{SkillKey: sk.Key, Version: v.Hash})
			if err != nil || fmt.Sprint(ids(xs)) != fmt.Sprint(m.ids[k]) {
				t.Fatalf("%s@%s: executions %v (%v), model %v", sk.Key, v.Hash, ids(xs), err, m.ids[k])
			}
		}
	}
}

// Random histories committed in random batches, with replayed IDs, ties,
// unscored executions, another rubric version and reopens: the store's
// incremental aggregates always equal a batch computation over the
// history, with default and with custom aggregate options, including
// versions with more scores than the aggregate's window.
func TestAggregatesMatchHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of concurrent or simulated work: runs without -short")
	}
	custom := aggregate.Options{Weights: []float64{1, 0.5, 0.25}, Trim: 0.2, MinSamples: 5, Window: 20}
	for seed, ao := range []aggregate.Options{{}, custom, aggregate.DefaultOptions()} {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 99))
			opts := Options{Aggregate: ao}
			db, path := openTest(t, opts)
			m := newModel()
			t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
			var all []record.Scored
			next := 0
			for batch := 0; batch < 40; batch++ {
				var b Batch
				for n := r.IntN(40) + 1; n > 0; n-- {
					if len(all) > 0 && r.IntN(8) == 0 {
						// A replay: same ID, possibly another score; ignored.
						s := all[r.IntN(len(all))]
						s.Result.Score = 1
						b.Executions = append(b.Executions, s)
						continue
					}
					// Skill "a" gets most executions so that one version
					// passes the window.
					skill := []string{"a", "a", "a", "b", "c"}[r.IntN(5)]
					ver := []string{"", "111111111111", "111111111111", "222222222222", "333333333333"}[r.IntN(5)]
					score := math.Round(r.Float64()*10000) / 100
					if r.IntN(3) == 0 {
						score = []float64{50, 70, 70.5, 100, 0}[r.IntN(5)] // ties
					}
					s := scored(fmt.Sprintf("%c%011d", 'a'+r.IntN(3), next), skill, ver, score, t0.Add(time.Duration(next)*time.Second))
					next++
					switch r.IntN(10) {
					case 0:
						s.Result.Scored = false
					case 1:
						s.Result.RubricVersion = "0.9.0"
					}
					b.Executions = append(b.Executions, s)
					all = append(all, s)
				}
				if err := db.Commit(&b); err != nil {
					t.Fatal(err)
				}
				for _, s := range b.Executions {
					m.add(s)
				}
				if r.IntN(6) == 0 {
					db.Close()
					reopened, err := Open(path, opts)
					if err != nil {
						t.Fatal(err)
					}
					*db = *reopened
				}
				if batch%10 == 9 {
					m.check(t, db)
				}
			}
			if n := len(m.scores["/p/.claude/skills/a/SKILL.md\x00111111111111"]); n <= 100 {
				t.Fatalf("fixture too thin: %d scores in the busiest version", n)
			}
		})
	}
}

// Readers running while the collector commits see consistent snapshots:
// counts never go back, listings stay newest first, every listed version
// aggregate agrees with the executions of the same snapshot. Run with
// -race.
func TestReadersDuringCommits(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of concurrent or simulated work: runs without -short")
	}
	db, _ := openTest(t, Options{})
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	reader := func(f func(last *int64) error) {
		defer wg.Done()
		var last int64
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := f(&last); err != nil {
				errs <- err
				return
			}
		}
	}
	wg.Add(3)
	go reader(func(last *int64) error {
		st, err := db.Stats()
		if err != nil || st.Executions < *last {
			return fmt.Errorf("stats went from %d to %+v (%v)", *last, st, err)
		}
		*last = st.Executions
		return nil
	})
	go reader(func(*int64) error {
		xs, err := db.Executions(record.Filter{Limit: 50})
		for i := 1; i < len(xs); i++ {
			if xs[i].Seq >= xs[i-1].Seq {
				return fmt.Errorf("listing not newest first: %d after %d", xs[i].Seq, xs[i-1].Seq)
			}
		}
		return err
	})
	go reader(func(*int64) error {
		skills, err := db.SkillsByKey([]string{"/p/.claude/skills/a/SKILL.md"})
		if err != nil || len(skills) == 0 {
			return err
		}
		total := 0
		for _, v := range skills[0].Versions {
			total += v.Aggregate.N
		}
		if total != skills[0].Executions {
			return fmt.Errorf("skill counts %d executions, its versions %d", skills[0].Executions, total)
		}
		return nil
	})
	for c := 0; c < 40; c++ {
		var b Batch
		for i := 0; i < 10; i++ {
			n := c*10 + i
			b.Executions = append(b.Executions, scored(fmt.Sprintf("c%011d", n), "a", []string{"111111111111", "222222222222"}[n%2], float64(n%100), t0.Add(time.Duration(n)*time.Second)))
		}
		if err := db.Commit(&b); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	skills, _ := db.Skills()
	if len(skills) != 1 || skills[0].Executions != 400 || len(skills[0].Versions) != 2 {
		t.Fatalf("after the writes: %+v", skills)
	}
}
