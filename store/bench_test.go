package store

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
)

// benchScored is an execution of a realistic size for the store: ten tool
// calls (one failed, one retry) and a full five-signal breakdown, about
// 3.9 KB of JSON once stored.
func benchScored(i int, skill, version string, at time.Time) record.Scored {
	x := execution.Execution{ID: fmt.Sprintf("%012x", i), SessionID: fmt.Sprintf("session-%04d", i%100), Skill: skill, Kind: "skill",
		Project: "/home/dev/project", SkillPath: "/home/dev/project/.claude/skills/" + skill + "/SKILL.md", SkillVersion: version,
		Prompt: "deploy the staging branch and report what changed", StartedAt: at, EndedAt: at.Add(90 * time.Second),
		Complete: true, Events: 22, LastEvent: at.Add(90 * time.Second), HasOutput: true}
	for c := 0; c < 10; c++ {
		x.Calls = append(x.Calls, execution.ToolCall{ID: fmt.Sprintf("toolu_%020d", i*10+c), Name: []string{"Read", "Bash", "Edit", "Grep"}[c%4],
			InputHash: fmt.Sprintf("%016x", c), Done: true, DurationMS: 120, HasDuration: true, Start: at, End: at.Add(time.Second),
			Failed: c == 3, Error: map[bool]string{true: "exit status 1"}[c == 3], Retry: c == 4})
	}
	score := float64(40 + i%61)
	r := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: score, Grade: fitness.GradeOf(score)}
	for _, name := range []string{fitness.SignalToolSuccess, fitness.SignalOutput, fitness.SignalEfficiency, fitness.SignalErrorRate, fitness.SignalStructure} {
		r.Signals = append(r.Signals, fitness.Signal{Signal: name, Present: true, Value: 0.9, SubScore: 0.9, Weight: 0.2,
			EffectiveWeight: 0.2, Contribution: 18, Detail: "9 of 10 tool calls succeeded (1 failed: Bash exit status 1)"})
	}
	return record.Scored{Exec: x, Result: r}
}

// BenchmarkCommit measures ingestion throughput per execution when the
// collector commits one execution per Update against 10, 100 and 1,000
// (each Update is one fsync'd bbolt transaction, with an offset and an
// open thread as the collector writes them). ns/op is per execution.
func BenchmarkCommit(b *testing.B) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, per := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("per_update=%d", per), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "sepa.db"), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			xs := make([]record.Scored, b.N)
			for i := range xs {
				xs[i] = benchScored(i, fmt.Sprintf("skill-%02d", i%50), fmt.Sprintf("%012d", i%3), t0.Add(time.Duration(i)*time.Second))
			}
			thread := []byte(`{"session":"s","executions":[{"id":"x","calls":[]}]}`)
			b.ResetTimer()
			for i := 0; i < b.N; i += per {
				batch := Batch{Executions: xs[i:min(i+per, b.N)],
					Offsets: []record.Offset{{File: "/home/dev/.sepa/spool/events.jsonl", Offset: int64(i) * 900, Size: int64(i) * 900, Lines: int64(i) * 22}},
					OpenPut: map[string][]byte{"session-0001": thread}, EventCounts: map[string]int64{"PostToolUse": int64(per) * 10}}
				if err := db.Commit(&batch); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "executions/s")
		})
	}
}

// listingFixture is 1,000 skills × 10 versions × 3 executions (30,000
// executions, committed 1,000 per Update, versions interleaved in commit
// order as they are when many skills run at once).
const (
	fixSkills   = 1000
	fixVersions = 10
	fixPerVer   = 3
)

func fixHash(skill, v int) string { return fmt.Sprintf("v%dx%09d", v, skill) }

// BenchmarkListing measures the reads the CLI and API make on a large
// database: one version's newest executions through the version index,
// the same through a filtered scan of all executions (a hash prefix
// instead of the full hash), a skill's newest executions (any version),
// the newest executions overall, a walk of one version, one skill's
// versions with their aggregates, and every skill.
func BenchmarkListing(b *testing.B) {
	db, err := Open(filepath.Join(b.TempDir(), "sepa.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var batch Batch
	n := 0
	for e := 0; e < fixPerVer; e++ {
		for v := 0; v < fixVersions; v++ {
			for s := 0; s < fixSkills; s++ {
				batch.Executions = append(batch.Executions, benchScored(n, fmt.Sprintf("skill-%04d", s), fixHash(s, v), t0.Add(time.Duration(n)*time.Second)))
				n++
				if len(batch.Executions) == 1000 {
					if err := db.Commit(&batch); err != nil {
						b.Fatal(err)
					}
					batch = Batch{}
				}
			}
		}
	}
	st, _ := db.Stats()
	b.Logf("fixture: %d executions, %d skills, %d MiB", st.Executions, st.Skills, st.Size>>20)
	key := func(s int) string { return fmt.Sprintf("/home/dev/project/.claude/skills/skill-%04d/SKILL.md", s) }
	keys, _ := db.SkillKeys()
	pick := func(r *rand.Rand) (string, string) {
		s, v := r.IntN(fixSkills), r.IntN(fixVersions)
		return key(s), fixHash(s, v)
	}
	expect := func(b *testing.B, got, want int) {
		if got != want {
			b.Fatalf("got %d records, want %d", got, want)
		}
	}
	cases := []struct {
		name string
		fn   func(b *testing.B, r *rand.Rand)
	}{
		{"version_index", func(b *testing.B, r *rand.Rand) {
			k, h := pick(r)
			xs, err := db.Executions(record.Filter{SkillKey: k, Version: h, Limit: 20})
			if err != nil {
				b.Fatal(err)
			}
			expect(b, len(xs), fixPerVer)
		}},
		{"version_walk", func(b *testing.B, r *rand.Rand) {
			k, h := pick(r)
			c := 0
			if err := walkLite(db, k, h, 20, func(*record.Scored) bool { c++; return true }); err != nil {
				b.Fatal(err)
			}
			expect(b, c, fixPerVer)
		}},
		{"version_scan", func(b *testing.B, r *rand.Rand) {
			k, h := pick(r)
			xs, err := db.Executions(record.Filter{SkillKey: k, Version: h[:11], Limit: 20})
			if err != nil {
				b.Fatal(err)
			}
			expect(b, len(xs), fixPerVer)
		}},
		{"skill_newest_3", func(b *testing.B, r *rand.Rand) {
			// What the mutation engine reads before a proposal.
			k, _ := pick(r)
			xs, err := db.Executions(record.Filter{SkillKey: k, Limit: 3})
			if err != nil {
				b.Fatal(err)
			}
			expect(b, len(xs), 3)
		}},
		{"newest_50", func(b *testing.B, r *rand.Rand) {
			xs, err := db.Executions(record.Filter{Limit: 50})
			if err != nil {
				b.Fatal(err)
			}
			expect(b, len(xs), 50)
		}},
		{"skill_versions", func(b *testing.B, r *rand.Rand) {
			k, _ := pick(r)
			vs, err := db.Versions(k)
			if err != nil {
				b.Fatal(err)
			}
			expect(b, len(vs), fixVersions)
		}},
		{"skills_all", func(b *testing.B, r *rand.Rand) {
			ss, err := db.Skills()
			if err != nil {
				b.Fatal(err)
			}
			expect(b, len(ss), fixSkills)
		}},
		{"skills_by_key_all", func(b *testing.B, r *rand.Rand) {
			ss, err := db.SkillsByKey(keys)
			if err != nil {
				b.Fatal(err)
			}
			expect(b, len(ss), fixSkills)
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < b.N; i++ {
				c.fn(b, r)
			}
		})
	}
}
