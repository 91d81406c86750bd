package collector

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// benchLines returns n realistic lines (enriched payloads of interleaved
// sessions), generated once per size.
var benchCache = map[int][][]byte{}

// benchLines returns n realistic lines: chunks of 100 interleaved sessions
// one after the other, as a team's day of Claude Code would produce (at
// most about a hundred sessions open at once).
func benchLines(n int) [][]byte {
	if l, ok := benchCache[n]; ok {
		return l
	}
	var lines [][]byte
	for seed := uint64(99); len(lines) < n; seed++ {
		o := sessiongen.Options{Seed: seed, Sessions: 100, TurnsPerSession: 12, ToolsPerTurn: 8, Interleave: true,
			Skills: []sessiongen.Skill{{Name: "deploy", Path: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Quality: 0.9},
				{Name: "review", Path: "/p/.claude/agents/review.md", Version: "bbbbbbbbbbbb", Quality: 0.7, Agent: true}}}
		lines = append(lines, sessiongen.Generate(o)...)
	}
	benchCache[n] = lines[:n]
	return lines[:n]
}

func benchSize(b *testing.B) int {
	if s := os.Getenv("SEPAD_BENCH_EVENTS"); s != "" {
		var n int
		fmt.Sscan(s, &n)
		return n
	}
	return 100_000
}

// BenchmarkIngest measures the collector reading a pre-written spool into an
// empty store, and, in the same run, plain encoding/json decoding of the
// same lines. SEPAD_BENCH_EVENTS sets the size (BENCHMARKS.md uses the
// default, 100,000). Two builds are compared by running their test
// binaries in turn (BENCHMARKS.md gives the command).
func BenchmarkIngest(b *testing.B) {
	n := benchSize(b)
	// One pointer-free buffer holds the spool: a slice of a million lines
	// would make every GC cycle of both runs scan a million pointers.
	var lines bytes.Buffer
	for _, l := range benchLines(n) {
		lines.Write(l)
		lines.WriteByte('\n')
	}
	delete(benchCache, n)
	runtime.GC()
	decode := func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rest := lines.Bytes()
			for len(rest) > 0 {
				j := bytes.IndexByte(rest, '\n')
				var m map[string]any
				if err := json.Unmarshal(rest[:j], &m); err != nil {
					b.Fatal(err)
				}
				rest = rest[j+1:]
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
	}
	// The baseline runs before and after ingestion: on a shared machine its
	// rate moves, and the ratio uses the mean of the two.
	b.Run("decode_json", decode)
	defer b.Run("decode_json_after", decode)
	b.Run("sepad_ingest", func(b *testing.B) {
		var dbBytes, usedBytes int64
		var cpu float64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			home := b.TempDir()
			os.WriteFile(spool.Path(home), lines.Bytes(), 0o600)
			db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
			if err != nil {
				b.Fatal(err)
			}
			c := New(db, Options{Home: home, Scorer: scorer, BatchLines: benchBatch(), RotateBytes: 1 << 40})
			if err := c.restore(); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			c0 := cpuSeconds()
			for c.Stats().Lines < int64(n) {
				if err := c.step(false); err != nil {
					b.Fatal(err)
				}
			}
			cpu += cpuSeconds() - c0
			b.StopTimer()
			if usedBytes, err = db.UsedBytes(); err != nil {
				b.Fatal(err)
			}
			db.Close()
			fi, _ := os.Stat(filepath.Join(home, "sepa.db"))
			dbBytes = fi.Size()
			b.StartTimer()
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
		// On a loaded machine wall time measures the neighbours too: the
		// process's CPU time per event compares two builds side by side.
		b.ReportMetric(cpu/float64(n*b.N)*1e6, "cpu-µs/event")
		b.ReportMetric(float64(dbBytes)/float64(n)*1e6/(1<<20), "MiB-db/Mevents")
		// The file grows in steps (store.DB.UsedBytes): the pages in use
		// say what the data takes.
		b.ReportMetric(float64(usedBytes)/float64(n)*1e6/(1<<20), "MiB-used/Mevents")
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapSys)/(1<<20), "MiB-heap-sys")
	})
}

// TestLatencySteadyRate appends events at a steady 1,000 events/s to the
// spool of a running collector (real fsnotify, real store) and reports the
// append-to-commit latency percentiles. Gated: SEPAD_LATENCY=1 (it takes
// the configured seconds of wall time).
func TestLatencySteadyRate(t *testing.T) {
	if os.Getenv("SEPAD_LATENCY") == "" {
		t.Skip("set SEPAD_LATENCY=1 to measure append-to-commit latency (BENCHMARKS.md)")
	}
	home := t.TempDir()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mu sync.Mutex
	var lats []time.Duration
	c := New(db, Options{Home: home, Scorer: scorer, OnCommit: func(ci CommitInfo) {
		mu.Lock()
		for _, ts := range ci.Times {
			lats = append(lats, ci.Committed.Sub(ts))
		}
		mu.Unlock()
	}})
	os.WriteFile(spool.Path(home), nil, 0o600)
	if err := c.Open(t.Context()); err != nil {
		t.Fatal(err)
	}
	lines := benchLines(10_000)
	tick := time.NewTicker(time.Millisecond)
	for _, l := range lines {
		<-tick.C
		// Stamp the receive time as the hook does.
		var m map[string]any
		json.Unmarshal(l, &m)
		m["sepa"].(map[string]any)["ts"] = time.Now().UTC().Format(time.RFC3339Nano)
		out, _ := json.Marshal(m)
		if _, err := spool.Append(home, out, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	tick.Stop()
	time.Sleep(500 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	if len(lats) < len(lines)*9/10 {
		t.Fatalf("only %d latencies for %d lines", len(lats), len(lines))
	}
	t.Logf("append-to-commit latency at 1000 events/s over %d events: p50 %v p99 %v max %v",
		len(lats), lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1])
}

// benchBatch is the lines per transaction (SEPAD_BENCH_BATCH, default the
// configuration's 5,000).
func benchBatch() int {
	n := 5000
	if s := os.Getenv("SEPAD_BENCH_BATCH"); s != "" {
		fmt.Sscan(s, &n)
	}
	return n
}
