package collector

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/transcript"
)

// writeTranscripts writes, under claude/projects, one transcript per
// session of the spool, as Claude Code would have written it: an
// assistant message (two records: text and tool_use, same id and usage)
// just before each PreToolUse, a tool_result (1 KiB of output) just after
// each post event, a final message before each Stop, and a
// stop_hook_summary after it. It returns the spool with its
// transcript_path values pointing there.
func writeTranscripts(tb testing.TB, spool []byte, claude string) []byte {
	tb.Helper()
	const prefix = "/home/dev/.claude" // sessiongen's transcript_path
	spool = bytes.ReplaceAll(spool, []byte(prefix), []byte(claude))
	files := map[string]*bufio.Writer{}
	var closers []*os.File
	out := func(path string) *bufio.Writer {
		if w, ok := files[path]; ok {
			return w
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			tb.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			tb.Fatal(err)
		}
		closers = append(closers, f)
		w := bufio.NewWriterSize(f, 64<<10)
		files[path] = w
		return w
	}
	pad := strings.Repeat("x", 1024)
	msg := 0
	ts := func(t time.Time, d time.Duration) string { return t.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") }
	assistant := func(w *bufio.Writer, t time.Time, block string) {
		msg++
		for i, b := range []string{`{"type":"text","text":"Working on it."}`, block} {
			if b == "" {
				continue
			}
			fmt.Fprintf(w, `{"parentUuid":"p","isSidechain":false,"type":"assistant","timestamp":"%s","message":{"id":"msg_%d","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[%s],"stop_reason":null,"usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d,"cache_creation_input_tokens":0}},"uuid":"u%d-%d","cwd":"/home/dev/src/app"}`+"\n",
				ts(t, -2*time.Millisecond), msg, b, 50+msg%17, 30+msg%11, 20000+msg%1000, msg, i)
		}
	}
	for rest := spool; len(rest) > 0; {
		j := bytes.IndexByte(rest, '\n')
		line := rest[:j]
		rest = rest[j+1:]
		ev, err := event.ParseLine(line)
		if err != nil || ev.TranscriptPath == "" || ev.Time.IsZero() {
			continue
		}
		path := transcript.Locate(ev.TranscriptPath, ev.SessionID, ev.AgentID)
		w := out(path)
		switch ev.HookEvent {
		case event.UserPromptSubmit:
			fmt.Fprintf(w, `{"type":"user","timestamp":"%s","message":{"role":"user","content":"do the work"},"uuid":"q"}`+"\n", ts(ev.Time, -time.Millisecond))
		case event.PreToolUse:
			assistant(w, ev.Time, fmt.Sprintf(`{"type":"tool_use","id":"%s","name":"%s","input":{"command":"go test ./..."}}`, ev.ToolUseID, ev.ToolName))
		case event.PostToolUse, event.PostToolUseFailure:
			fmt.Fprintf(w, `{"type":"user","timestamp":"%s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"%s","is_error":%v,"content":"%s"}]},"uuid":"r"}`+"\n",
				ts(ev.Time, time.Millisecond), ev.ToolUseID, ev.HookEvent == event.PostToolUseFailure, pad)
		case event.Stop, event.SubagentStop:
			assistant(w, ev.Time, "")
			fmt.Fprintf(w, `{"type":"system","subtype":"stop_hook_summary","timestamp":"%s"}`+"\n", ts(ev.Time, 5*time.Millisecond))
		}
	}
	for _, w := range files {
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
	}
	for _, f := range closers {
		f.Close()
	}
	return spool
}

// BenchmarkIngestTranscripts measures, in one run, the collector ingesting
// the same pre-written spool into an empty store without transcripts and
// with every execution's part of its transcript read (one transcript per
// session, written as Claude Code would): the ratio of the two is the
// cost of reading transcripts during ingestion. SEPAD_BENCH_EVENTS sets
// the size (default 100,000).
func BenchmarkIngestTranscripts(b *testing.B) {
	n := benchSize(b)
	var raw bytes.Buffer
	for _, l := range benchLines(n) {
		raw.Write(l)
		raw.WriteByte('\n')
	}
	delete(benchCache, n)
	claude := filepath.Join(b.TempDir(), ".claude")
	lines := writeTranscripts(b, raw.Bytes(), claude)
	var tsize int64
	filepath.Walk(claude, func(_ string, fi os.FileInfo, _ error) error {
		if fi != nil && fi.Mode().IsRegular() {
			tsize += fi.Size()
		}
		return nil
	})
	b.Logf("%d events, spool %d MiB, transcripts %d MiB", n, len(lines)>>20, tsize>>20)
	runtime.GC()
	ingest := func(tr func() *transcript.Tracker) func(b *testing.B) {
		return func(b *testing.B) {
			var usage, executions int
			var cpu float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				home := b.TempDir()
				os.WriteFile(spool.Path(home), lines, 0o600)
				db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
				if err != nil {
					b.Fatal(err)
				}
				// The clock is far past the sessions: a backlog never waits.
				c := New(db, Options{Home: home, Scorer: scorer, BatchLines: benchBatch(), RotateBytes: 1 << 40, Transcripts: tr(),
					Now: func() time.Time { return time.Now().Add(24 * 365 * time.Hour) }})
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
				xs, err := db.Executions(record.Filter{})
				if err != nil {
					b.Fatal(err)
				}
				usage, executions = 0, len(xs)
				for _, x := range xs {
					if x.Exec.Usage != nil {
						usage++
					}
				}
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(usage)/float64(max(executions, 1)), "share-with-usage")
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
		}
	}
	b.Run("without_transcripts", ingest(func() *transcript.Tracker { return nil }))
	b.Run("with_transcripts", ingest(func() *transcript.Tracker {
		return &transcript.Tracker{ClaudeDir: claude, Prices: transcript.Prices{"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.3, CacheCreation: 3.75}}}
	}))
	defer b.Run("without_transcripts_after", ingest(func() *transcript.Tracker { return nil }))
}
