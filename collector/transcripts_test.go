package collector

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/transcript"
)

// transcriptRig is a rig whose spool is a real Claude Code 2.1.328 session
// (testdata/transcript_spool.jsonl: 2 hook-reported calls, one failed)
// whose transcript (../transcript/testdata/session.jsonl) also holds 2
// calls refused before any hook.
type transcriptRig struct {
	*rig
	claude, path string
	full         []byte
}

func newTranscriptRig(t *testing.T, mod func(*Options)) *transcriptRig {
	t.Helper()
	claude := filepath.Join(t.TempDir(), ".claude")
	proj := filepath.Join(claude, "projects", "-scratch-home-proj")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	tr := &transcriptRig{claude: claude, path: filepath.Join(proj, "23dcffeb-938d-45c5-987d-5b9bf98eb7f4.jsonl"), full: full}
	tr.rig = newRig(t, func(o *Options) {
		o.Transcripts = &transcript.Tracker{ClaudeDir: claude, Prices: transcript.Prices{"claude-opus-5": {Input: 5, Output: 25}}, Wait: 2 * time.Second}
		if mod != nil {
			mod(o)
		}
	})
	return tr
}

func (tr *transcriptRig) appendSpool() {
	tr.t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "transcript_spool.jsonl"))
	if err != nil {
		tr.t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte("@TRANSCRIPT@"), []byte(tr.path))
	tr.append(tr.spool(), bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")))
}

// steps runs a few steps without moving the clock (the spool is found,
// read and committed).
func (tr *transcriptRig) steps() {
	tr.t.Helper()
	for i := 0; i < 3; i++ {
		if err := tr.c.step(true); err != nil {
			tr.t.Fatal(err)
		}
	}
}

func (tr *transcriptRig) only() record.Scored {
	tr.t.Helper()
	xs := mustIDs(tr.t, tr.db)
	if len(xs) != 1 {
		tr.t.Fatalf("%d executions stored, want 1", len(xs))
	}
	return xs[0]
}

// The transcript lags: when the execution closes only its first records
// are written. The collector waits (its injected clock, bounded) and reads
// the rest: exact tokens, the cost, and the two refused calls as failures.
func TestTranscriptLagsBehindHooks(t *testing.T) {
	var tr *transcriptRig
	slept := time.Duration(0)
	sessionEnd := time.Date(2026, 11, 24, 4, 49, 4, 872444791, time.UTC)
	tr = newTranscriptRig(t, func(o *Options) {
		o.Sleep = func(d time.Duration) {
			slept += d
			tr.clk.Add(d)
			if slept >= 300*time.Millisecond {
				os.WriteFile(tr.path, tr.full, 0o600)
			}
		}
	})
	lines := strings.SplitAfter(string(tr.full), "\n")
	if err := os.WriteFile(tr.path, []byte(strings.Join(lines[:8], "")), 0o600); err != nil {
		t.Fatal(err)
	}
	tr.appendSpool()
	tr.clk.t = sessionEnd.Add(10 * time.Millisecond) // live: just after the session ended
	tr.steps()
	x := tr.only()
	u := x.Exec.Usage
	if u == nil || u.InputTokens != 460 || u.OutputTokens != 110 || u.Messages != 4 || u.CostNanoUSD != 5_050_000 || !u.CostKnown {
		t.Fatalf("usage %+v (%s)", u, x.Exec.UsageReason)
	}
	if slept < 300*time.Millisecond || slept > 2*time.Second {
		t.Errorf("waited %v for the transcript", slept)
	}
	if len(x.Exec.Calls) != 4 || x.Result.Errors.ToolFailures != 3 || x.Result.Errors.TranscriptFailures != 2 {
		t.Errorf("%d calls, errors %+v", len(x.Exec.Calls), x.Result.Errors)
	}
	if d := x.Result.Signals[0].Detail; d != "1/4 tool calls succeeded (2 refused before any hook, seen in the transcript)" {
		t.Errorf("detail %q", d)
	}
	// The read stopped at the first record written after the execution's
	// end (the Stop hook's summary): the next execution starts there.
	next := int64(bytes.Index(tr.full, []byte(`"subtype":"stop_hook_summary"`)))
	next = int64(bytes.LastIndexByte(tr.full[:next], '\n') + 1)
	offs, err := tr.db.TranscriptOffsets()
	if err != nil || len(offs) != 1 || offs[0].Path != tr.path || offs[0].Offset != next {
		t.Errorf("transcript offsets %+v %v (want %d)", offs, err, next)
	}
	// The version's sums.
	vs, err := tr.db.Versions(x.SkillKey)
	if err != nil || len(vs) != 1 || vs[0].Tokens == nil || vs[0].Tokens.Total() != 570 || vs[0].Tokens.N != 1 {
		t.Errorf("version tokens %+v %v", vs, err)
	}
}

// A transcript that is missing (or foreign) leaves the usage absent with a
// reason; the execution is stored and scored on its hooks alone, without
// waiting when it ended long ago (a backlog).
func TestTranscriptMissing(t *testing.T) {
	tr := newTranscriptRig(t, func(o *Options) {
		o.Sleep = func(time.Duration) { t.Error("waited for an old execution's transcript") }
	})
	tr.appendSpool()
	tr.clk.t = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	tr.steps()
	x := tr.only()
	if x.Exec.Usage != nil || x.Exec.UsageReason != transcript.ReasonMissing || !x.Result.Scored || len(x.Exec.Calls) != 2 {
		t.Errorf("usage %+v reason %q scored %v calls %d", x.Exec.Usage, x.Exec.UsageReason, x.Result.Scored, len(x.Exec.Calls))
	}
	if x.Result.Errors.TranscriptFailures != 0 {
		t.Errorf("errors %+v", x.Result.Errors)
	}
}

// A transcript cut in the middle of a record (a torn write, a copy of a
// live file): the records before it count, the torn one is left for later.
func TestTranscriptTruncated(t *testing.T) {
	tr := newTranscriptRig(t, nil)
	lines := strings.SplitAfter(string(tr.full), "\n")
	torn := strings.Join(lines[:7], "") + lines[7][:len(lines[7])/2]
	if err := os.WriteFile(tr.path, []byte(torn), 0o600); err != nil {
		t.Fatal(err)
	}
	tr.appendSpool()
	tr.clk.t = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	tr.steps()
	x := tr.only()
	offs, _ := tr.db.TranscriptOffsets()
	if x.Exec.Usage == nil || x.Exec.Usage.Messages != 1 || len(offs) != 1 || offs[0].Offset != int64(len(strings.Join(lines[:7], ""))) {
		t.Errorf("usage %+v reason %q offsets %+v", x.Exec.Usage, x.Exec.UsageReason, offs)
	}
}

// The tracker's read positions do not pile up in memory: one transcript
// per session, N sessions ingested in separate batches, and after every
// commit the tracker remembers none of them; the store has them all, and
// a restarted collector does not load them up front.
func TestTranscriptPositionsNotKeptInMemory(t *testing.T) {
	tr := newTranscriptRig(t, nil)
	tracker := tr.opts.Transcripts
	spool, err := os.ReadFile(filepath.Join("testdata", "transcript_spool.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const sid = "23dcffeb-938d-45c5-987d-5b9bf98eb7f4"
	tr.clk.t = time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC) // a backlog: no waiting
	const n = 40
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("%s-%03d", sid[:30], i)
		p := filepath.Join(filepath.Dir(tr.path), s+".jsonl")
		if err := os.WriteFile(p, tr.full, 0o600); err != nil {
			t.Fatal(err)
		}
		b := bytes.ReplaceAll(spool, []byte("@TRANSCRIPT@"), []byte(p))
		b = bytes.ReplaceAll(b, []byte(sid), []byte(s))
		tr.append(tr.spool(), bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")))
		tr.steps()
		if m := tracker.Remembered(); m != 0 {
			t.Fatalf("after session %d: %d positions in memory", i, m)
		}
		o, ok, err := tr.db.TranscriptOffset(p)
		if err != nil || !ok || o.Offset == 0 {
			t.Fatalf("session %d: stored position %+v %v %v", i, o, ok, err)
		}
	}
	xs := mustIDs(t, tr.db)
	if len(xs) != n {
		t.Fatalf("%d executions, want %d", len(xs), n)
	}
	for _, x := range xs {
		if u := x.Exec.Usage; u == nil || u.Messages != 4 {
			t.Fatalf("execution %s: usage %+v (%s)", x.Exec.ID, u, x.Exec.UsageReason)
		}
	}
	if offs, err := tr.db.TranscriptOffsets(); err != nil || len(offs) != n {
		t.Fatalf("%d positions stored (%v), want %d", len(offs), err, n)
	}
	tr.restart()
	if m := tracker.Remembered(); m != 0 {
		t.Errorf("a restart loaded %d positions", m)
	}
}
