package export

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

// benchStore builds (or reuses and completes, with SEPAD_BENCH_DB set to a
// path) a store of n executions of 20 skills, about 2 KB each, one in ten
// of the first 2,000 labelled.
func benchStore(b *testing.B, n int) *store.DB {
	path := os.Getenv("SEPAD_BENCH_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "sepa.db")
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	st, err := db.Stats()
	if err != nil {
		b.Fatal(err)
	}
	have := int(st.Executions) // a store built before (SEPAD_BENCH_DB) is reused, and completed
	if have == n {
		return db
	}
	const per = 5000
	for i := have; i < n; i += per {
		var xs []record.Scored
		for j := i; j < min(i+per, n); j++ {
			at := t0.Add(time.Duration(j) * time.Second)
			x := execution.Execution{ID: fmt.Sprintf("%012x", j), SessionID: fmt.Sprintf("s%d", j/3), Skill: fmt.Sprintf("skill-%02d", j%20),
				Kind: "skill", Project: "/srv/p", SkillVersion: fmt.Sprintf("%012d", j%3), Prompt: fmt.Sprintf("run %d: deploy the staging branch", j),
				StartedAt: at, EndedAt: at.Add(time.Minute), Complete: true, HasOutput: true,
				Output: "Deployed to staging; the health check answers ok and all tests pass."}
			for c := 0; c < 6; c++ {
				x.Calls = append(x.Calls, execution.ToolCall{Name: []string{"Read", "Bash", "Edit"}[c%3], Done: true, Failed: c == 4 && j%5 == 0, DurationMS: 100, HasDuration: true})
			}
			xs = append(xs, record.Scored{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: float64(50 + j%50),
				Grade: fitness.GradeOf(float64(50 + j%50))}})
		}
		if err := db.Commit(&store.Batch{Executions: xs}); err != nil {
			b.Fatal(err)
		}
	}
	if have > 0 {
		return db // labelled when it was first built
	}
	// Labels are one transaction each: the first 2,000 executions get
	// one in ten.
	for j := 0; j < min(n, 2000); j += 10 {
		s := 0.9
		l, _ := reward.New(fmt.Sprintf("%012x", j), reward.Input{Outcome: "success", Score: &s, Rater: "ana", RubricVersion: "r1"}, t0)
		if _, err := db.PutLabel(l, nil); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

// peakHeap samples the heap's objects (live and not yet swept) every 5 ms until stop is called,
// and returns the largest value seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// runtime/metrics, unlike ReadMemStats, does not stop the world.
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak.Load() }
}

// BenchmarkExport streams every format of a store of SEPAD_BENCH_EXECUTIONS
// executions (default 20,000) to io.Discard and reports the executions
// per second and the peak live heap during the export: flat in the size
// of the store (BENCHMARKS.md).
func BenchmarkExport(b *testing.B) {
	n := 20_000
	if s := os.Getenv("SEPAD_BENCH_EXECUTIONS"); s != "" {
		fmt.Sscan(s, &n)
	}
	db := benchStore(b, n)
	defer db.Close()
	for _, f := range []string{JSONL, CSV, Reward, SFT} {
		b.Run(f, func(b *testing.B) {
			b.ReportAllocs()
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			stop := peakHeap()
			for i := 0; i < b.N; i++ {
				st, err := Write(io.Discard, db, Options{Format: f})
				if err != nil || st.Read != n {
					b.Fatal(st, err)
				}
			}
			peak := stop()
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "executions/s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(base.HeapAlloc)/(1<<20), "heap-before-MiB")
		})
	}
}
