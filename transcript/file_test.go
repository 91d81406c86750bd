package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

// claudeDir makes a config dir with projects/<slug>/ and returns both.
func claudeDir(t *testing.T) (dir, proj string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), ".claude")
	proj = filepath.Join(dir, "projects", "-home-dev-app")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir, proj
}

func copyFixture(t *testing.T, name, to string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRefuses(t *testing.T) {
	dir, proj := claudeDir(t)
	good := filepath.Join(proj, "s.jsonl")
	copyFixture(t, "session.jsonl", good)
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	copyFixture(t, "session.jsonl", outside)
	link := filepath.Join(proj, "link.jsonl")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ path, reason string }{
		{good, ""},
		{outside, "outside"},
		{link, "outside"}, // a link out of projects/ is not followed
		{filepath.Join(proj, "..", "..", "settings.json"), "outside"},
		{`C:\Users\dev\.claude\projects\C--src\s.jsonl`, "foreign"},
		{"relative/s.jsonl", "foreign"},
		{"/home/someone-else/.claude/projects/-x/s.jsonl", "outside"},
		{filepath.Join(proj, "gone.jsonl"), ReasonMissing},
		{proj, "not a regular file"},
		{"", "no transcript_path"},
	}
	for _, c := range cases {
		f, _, reason := Open(dir, c.path)
		if f != nil {
			f.Close()
		}
		if c.reason == "" && reason != "" || c.reason != "" && !strings.Contains(reason, c.reason) {
			t.Errorf("Open(%q): reason %q, want %q", c.path, reason, c.reason)
		}
		if (f != nil) != (c.reason == "") {
			t.Errorf("Open(%q): file %v", c.path, f != nil)
		}
	}
}

func TestReadFileTruncated(t *testing.T) {
	dir, proj := claudeDir(t)
	p := filepath.Join(proj, "s.jsonl")
	copyFixture(t, "session.jsonl", p)
	w, st, reason := ReadFile(dir, State{Path: p}, Options{})
	if reason != "" || w.Messages != 4 || st.Offset == 0 {
		t.Fatalf("first read: %q %d messages %+v", reason, w.Messages, st)
	}
	if err := os.Truncate(p, 100); err != nil {
		t.Fatal(err)
	}
	w, st2, reason := ReadFile(dir, st, Options{})
	if !strings.Contains(reason, "truncated") || w.Messages != 0 || st2.Offset != 100 {
		t.Errorf("after truncation: %q %d messages %+v", reason, w.Messages, st2)
	}
}

// fakeClock is the collector's clock in tests: sleep advances it and runs
// a hook (a transcript written late).
type fakeClock struct {
	now    time.Time
	slept  time.Duration
	onStep func(time.Time)
}

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) Sleep(d time.Duration) {
	c.now = c.now.Add(d)
	c.slept += d
	if c.onStep != nil {
		c.onStep(c.now)
	}
}

func lines(t *testing.T, name string) []string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
}

// The transcript is written after the Stop hook: the tracker waits (on the
// injected clock, bounded) until a record past the end shows up.
func TestTrackerLag(t *testing.T) {
	dir, proj := claudeDir(t)
	p := filepath.Join(proj, "s.jsonl")
	ls := lines(t, "session.jsonl")
	// Only the first half is there when the execution closes.
	if err := os.WriteFile(p, []byte(strings.Join(ls[:8], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	end := ts("2026-11-24T04:49:04.81865119Z") // the Stop hook
	clk := &fakeClock{now: end.Add(10 * time.Millisecond)}
	clk.onStep = func(now time.Time) {
		if now.Sub(end) > 500*time.Millisecond {
			os.WriteFile(p, []byte(strings.Join(ls, "")), 0o600)
		}
	}
	tr := &Tracker{ClaudeDir: dir, Prices: Prices{"claude-opus": {Input: 5, Output: 25}}, Wait: 2 * time.Second}
	x := &execution.Execution{SessionID: "s", TranscriptPath: p, EndedAt: end,
		Calls: []execution.ToolCall{{ID: "toolu_probe_0_0_1", Name: "Bash"}, {ID: "toolu_probe_2_0_3", Name: "Bash", Failed: true}}}
	tr.Enrich(x, clk.Now, clk.Sleep)
	if x.Usage == nil || x.Usage.InputTokens != 460 || x.Usage.OutputTokens != 110 || x.Usage.Messages != 4 {
		t.Fatalf("usage %+v reason %q", x.Usage, x.UsageReason)
	}
	if clk.slept < 500*time.Millisecond || clk.slept > 2*time.Second {
		t.Errorf("waited %v", clk.slept)
	}
	// 460 × $5 + 110 × $25 per Mtok = 5,050,000 nano$.
	if x.Usage.CostNanoUSD != 5_050_000 || !x.Usage.CostKnown {
		t.Errorf("cost %d known %v", x.Usage.CostNanoUSD, x.Usage.CostKnown)
	}
	// Two refused calls no hook saw join the execution; the hook's failed
	// call is not counted twice.
	var hidden []string
	for _, c := range x.Calls {
		if c.Source == "transcript" {
			hidden = append(hidden, c.Name+":"+c.ID)
			if c.OK() {
				t.Errorf("hidden call %s counts as a success", c.ID)
			}
		}
	}
	if fmt.Sprint(hidden) != "[Bash:toolu_probe_0_1_1 NoSuchTool:toolu_probe_1_0_2]" || len(x.Calls) != 4 {
		t.Errorf("hidden %v, %d calls", hidden, len(x.Calls))
	}
	if d := tr.Dirty(); len(d) != 1 || d[0].Path != p || d[0].Offset == 0 {
		t.Errorf("dirty %+v", d)
	}

	// A transcript that never catches up: the wait is bounded, and what
	// is there is taken.
	p2 := filepath.Join(proj, "s2.jsonl")
	os.WriteFile(p2, []byte(strings.Join(ls[:8], "")), 0o600)
	clk2 := &fakeClock{now: end}
	y := &execution.Execution{SessionID: "s2", TranscriptPath: p2, EndedAt: end}
	tr.Enrich(y, clk2.Now, clk2.Sleep)
	if clk2.slept != 2*time.Second || y.Usage == nil || y.Usage.Messages != 1 {
		t.Errorf("bounded wait: slept %v usage %+v %q", clk2.slept, y.Usage, y.UsageReason)
	}
	// An old execution (catching up a backlog) never waits.
	clk3 := &fakeClock{now: end.Add(time.Hour)}
	z := &execution.Execution{SessionID: "s3", TranscriptPath: filepath.Join(proj, "none.jsonl"), EndedAt: end}
	tr.Enrich(z, clk3.Now, clk3.Sleep)
	if clk3.slept != 0 || z.Usage != nil || z.UsageReason != ReasonMissing {
		t.Errorf("missing: slept %v usage %+v %q", clk3.slept, z.Usage, z.UsageReason)
	}
}

func TestLocateSubagent(t *testing.T) {
	got := Locate("/h/.claude/projects/-p/S.jsonl", "S", "a1")
	if want := filepath.Join("/h/.claude/projects/-p", "S", "subagents", "agent-a1.jsonl"); got != want {
		t.Errorf("Locate: %s, want %s", got, want)
	}
	if Locate("/h/.claude/projects/-p/S.jsonl", "S", "../x") != "" {
		t.Error("an agent id with a separator makes a path")
	}
}

// A huge transcript (SEPAD_TRANSCRIPT_HUGE=1: 1 GiB; else 64 MiB) with a
// few huge lines is read with bounded memory: the heap in use stays far
// below the file's size.
func TestHugeFileBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a large file")
	}
	dir, proj := claudeDir(t)
	p := filepath.Join(proj, "huge.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(64 << 20)
	if os.Getenv("SEPAD_TRANSCRIPT_HUGE") == "1" {
		size = 1 << 30
	}
	pad := strings.Repeat("x", 4000)
	var written int64
	msgs := 0
	for i := 0; written < size; i++ {
		var line string
		if i%5000 == 4999 {
			// a 20 MiB line (an image, a huge file read): skipped
			line = `{"type":"user","timestamp":"2026-01-02T10:00:00Z","message":{"content":"` + strings.Repeat("y", 20<<20) + "\"}}\n"
		} else {
			line = fmt.Sprintf(`{"type":"assistant","timestamp":"2026-01-02T10:00:00Z","message":{"id":"m%d","model":"m","usage":{"input_tokens":1,"output_tokens":2},"content":[{"type":"text","text":"%s"}]}}`+"\n", i, pad)
			msgs++
		}
		n, err := f.WriteString(line)
		if err != nil {
			t.Fatal(err)
		}
		written += int64(n)
	}
	f.Close()
	runtime.GC()
	var before, peak runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	maxHeap := uint64(0)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				maxHeap = max(maxHeap, m.HeapInuse)
			}
		}
	}()
	start := time.Now()
	w, _, reason := ReadFile(dir, State{Path: p}, Options{})
	close(done)
	runtime.ReadMemStats(&peak)
	el := time.Since(start)
	if reason != "" || w.Messages != msgs || w.Usage.Input != int64(msgs) || w.Skipped == 0 {
		t.Fatalf("%q: %d messages of %d, skipped %d", reason, w.Messages, msgs, w.Skipped)
	}
	grew := int64(maxHeap) - int64(before.HeapInuse)
	t.Logf("read %d MiB, %d messages, %d lines skipped in %v (%.0f MiB/s); heap in use grew by at most %.1f MiB, total allocated %.0f MiB",
		written>>20, w.Messages, w.Skipped, el, float64(written)/(1<<20)/el.Seconds(), float64(grew)/(1<<20), float64(peak.TotalAlloc-before.TotalAlloc)/(1<<20))
	// The cap (8 MiB) for one line, the maps of message ids (bounded by
	// maxIDs), the reader's buffer: well under 64 MiB whatever the size.
	if grew > 48<<20 {
		t.Errorf("heap grew by %d MiB reading %d MiB", grew>>20, written>>20)
	}
}
