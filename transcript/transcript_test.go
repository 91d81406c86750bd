package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

func readFixture(t *testing.T, name string, start int64, o Options) Window {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	w, err := Read(bytes.NewReader(b[start:]), start, o)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestReadTable(t *testing.T) {
	cases := []struct {
		name     string
		file     string
		until    string
		usage    Usage
		messages int
		models   []string
		failures []Failure
		past     bool
		partial  bool
		bad      int
	}{
		{
			// Claude Code 2.1.328 against the fake server: four messages,
			// the first written as three records (text, two tool_use).
			name: "real_session_all", file: "session.jsonl",
			usage: Usage{Input: 460, Output: 110}, messages: 4, models: []string{"claude-opus-5-5"},
			failures: []Failure{
				{ToolUseID: "toolu_probe_0_1_1", Tool: "Bash", Kind: "input_validation"},
				{ToolUseID: "toolu_probe_1_0_2", Tool: "NoSuchTool", Kind: "unknown_tool"},
				{ToolUseID: "toolu_probe_2_0_3", Tool: "Bash", Kind: "error"},
			},
		},
		{
			// Until the Stop hook's time: the stop_hook_summary after it
			// says the window is complete.
			name: "real_session_until_stop", file: "session.jsonl", until: "2026-11-24T04:49:04.81865119Z",
			usage: Usage{Input: 460, Output: 110}, messages: 4, models: []string{"claude-opus-5-5"},
			failures: []Failure{
				{ToolUseID: "toolu_probe_0_1_1", Tool: "Bash", Kind: "input_validation"},
				{ToolUseID: "toolu_probe_1_0_2", Tool: "NoSuchTool", Kind: "unknown_tool"},
				{ToolUseID: "toolu_probe_2_0_3", Tool: "Bash", Kind: "error"},
			},
			past: true,
		},
		{
			name: "real_session_first_message", file: "session.jsonl", until: "2026-11-24T04:49:04.2Z",
			usage: Usage{Input: 100, Output: 35}, messages: 1, models: []string{"claude-opus-5-5"}, past: true,
		},
		{
			// Growing output counts over a message's records: the largest
			// counts once; two models; a line that is not JSON; a torn
			// last line.
			name: "mixed_all", file: "mixed.jsonl",
			usage:    Usage{Input: 65, Output: 52, CacheRead: 2200, CacheCreation: 200},
			messages: 4, models: []string{"claude-haiku-4-5", "claude-sonnet-4-5-20250929"},
			failures: []Failure{{ToolUseID: "toolu_1", Tool: "Read", Kind: "input_validation"}},
			partial:  true, bad: 1,
		},
		{
			name: "mixed_first_turn", file: "mixed.jsonl", until: "2026-01-02T10:00:05.500Z",
			usage:    Usage{Input: 35, Output: 50, CacheRead: 2200, CacheCreation: 200},
			messages: 3, models: []string{"claude-haiku-4-5", "claude-sonnet-4-5-20250929"},
			failures: []Failure{{ToolUseID: "toolu_1", Tool: "Read", Kind: "input_validation"}},
			past:     true, bad: 1,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := Options{}
			if c.until != "" {
				o.Until = ts(c.until)
			}
			w := readFixture(t, c.file, 0, o)
			if w.Usage != c.usage || w.Messages != c.messages {
				t.Errorf("usage %+v in %d messages, want %+v in %d", w.Usage, w.Messages, c.usage, c.messages)
			}
			if got := w.Models(); !reflect.DeepEqual(got, c.models) {
				t.Errorf("models %v, want %v", got, c.models)
			}
			var got []Failure
			for _, f := range w.Failures {
				if f.Time.IsZero() {
					t.Errorf("failure %s has no time", f.ToolUseID)
				}
				f.Time = time.Time{}
				got = append(got, f)
			}
			if !reflect.DeepEqual(got, c.failures) {
				t.Errorf("failures %+v, want %+v", got, c.failures)
			}
			if w.Past != c.past || w.Partial != c.partial || w.Malformed != c.bad {
				t.Errorf("past %v partial %v malformed %d, want %v %v %d", w.Past, w.Partial, w.Malformed, c.past, c.partial, c.bad)
			}
		})
	}
}

// Reading in windows from remembered offsets counts every message once,
// as one read of the whole does, also when a message's records straddle
// the boundary.
func TestReadIncremental(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := Read(bytes.NewReader(b), 0, Options{})
	// Cut inside the first message's records (04.149 is its second record).
	cuts := []string{"2026-11-24T04:49:04.145Z", "2026-11-24T04:49:04.3Z", "2026-11-24T04:49:04.5Z", ""}
	var sum Usage
	msgs, fails := 0, 0
	var off int64
	after := ""
	for _, c := range cuts {
		o := Options{After: after}
		if c != "" {
			o.Until = ts(c)
		}
		w, err := Read(bytes.NewReader(b[off:]), off, o)
		if err != nil {
			t.Fatal(err)
		}
		if w.Start != off || w.End < off {
			t.Fatalf("window %d..%d from %d", w.Start, w.End, off)
		}
		sum.add(w.Usage)
		msgs += w.Messages
		fails += len(w.Failures)
		off, after = w.End, w.LastMessage
	}
	if sum != whole.Usage || msgs != whole.Messages || fails != len(whole.Failures) || off != int64(len(b)) {
		t.Errorf("windows %+v %d msgs %d failures end %d; whole %+v %d %d %d", sum, msgs, fails, off, whole.Usage, whole.Messages, len(whole.Failures), len(b))
	}
}

func TestLongLineSkipped(t *testing.T) {
	big := `{"type":"assistant","timestamp":"2026-01-02T10:00:01Z","message":{"id":"m1","model":"x","usage":{"input_tokens":1,"output_tokens":1},"content":[{"type":"text","text":"` + strings.Repeat("a", 200<<10) + `"}]}}` + "\n"
	small := `{"type":"assistant","timestamp":"2026-01-02T10:00:02Z","message":{"id":"m2","model":"x","usage":{"input_tokens":5,"output_tokens":6}}}` + "\n"
	in := big + small
	w, err := Read(strings.NewReader(in), 0, Options{MaxLine: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if w.Skipped != 1 || w.Messages != 1 || w.Usage != (Usage{Input: 5, Output: 6}) || w.End != int64(len(in)) {
		t.Errorf("skipped %d, %d messages %+v, end %d of %d", w.Skipped, w.Messages, w.Usage, w.End, len(in))
	}
	// The same long line still being written is not taken.
	w, _ = Read(strings.NewReader(big[:150<<10]), 0, Options{MaxLine: 64 << 10})
	if !w.Partial || w.End != 0 || w.Skipped != 0 {
		t.Errorf("torn long line: partial %v end %d skipped %d", w.Partial, w.End, w.Skipped)
	}
}

func TestPrices(t *testing.T) {
	p := Prices{"claude-sonnet-4-5": {Input: 3, Output: 15, CacheRead: 0.3, CacheCreation: 3.75}, "claude-sonnet": {Input: 1}}
	if pr, ok := p.For("claude-sonnet-4-5-20250929"); !ok || pr.Input != 3 {
		t.Errorf("longest prefix: %+v %v", pr, ok)
	}
	if _, ok := p.For("claude-opus-4-1"); ok {
		t.Error("an unpriced model has a price")
	}
	// 1M input at $3 + 1M output at $15 + 1M cache read at $0.30 + 1M cache
	// creation at $3.75 = $22.05.
	n, known := p.CostNanoUSD(map[string]Usage{"claude-sonnet-4-5-x": {1e6, 1e6, 1e6, 1e6}})
	if n != 22_050_000_000 || !known {
		t.Errorf("cost %d nano$ known %v", n, known)
	}
	n, known = p.CostNanoUSD(map[string]Usage{"claude-sonnet-4-5": {Input: 1000}, "gpt": {Input: 1}})
	if n != 3_000_000 || known {
		t.Errorf("partial cost %d known %v", n, known)
	}
}
