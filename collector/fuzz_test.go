package collector

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/spool"
)

// FuzzCollectorStore runs spools through the collector into a real bbolt
// file: the hook's own output (the spools the real Claude Code CLI's
// hooks wrote, testdata/claude-code, and the payloads of
// hooks/testdata/payloads and of issue 33's poison pills, each as the
// hook writes it) mutated by the fuzzer, each line also passed through
// the hook again. Whatever the lines, no step fails (a failed commit is
// retried with the same lines at every start: a poison pill), the store
// is not left stalled, every line is counted as an event or quarantined,
// and a restart neither fails nor counts a line again. Before the key
// bounds (event.MaxIdentity, store/keys.go), the pill seeds failed their
// commit with "key too large".
func FuzzCollectorStore(f *testing.F) {
	const maxFuzzInput = 256 << 10
	// The recorded spools in pieces of at most 24 lines: small inputs
	// keep the fuzzer fast (every input goes through a real bbolt file).
	spools, _ := filepath.Glob("../testdata/claude-code/*/*/events.jsonl")
	for _, p := range spools {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		for i := 0; i < len(lines); i += 24 {
			if piece := bytes.Join(lines[i:min(i+24, len(lines))], nil); len(piece) <= maxFuzzInput {
				f.Add(piece)
			}
		}
	}
	now := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	payloads, _ := filepath.Glob("../hooks/testdata/payloads/*.json")
	for _, p := range payloads {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(append(hooks.Enrich(b, now, hooks.Options{}), '\n'))
		}
	}
	big := strings.Repeat("x", 40_000)
	for _, field := range []string{"hook_event_name", "session_id", "cwd", "agent_id", "transcript_path", "prompt_id"} {
		// A turn with the field over 32 KiB (a subagent's call left open
		// for agent_id), as the hook writes it and as a raw payload.
		var hooked, raw []byte
		for _, ev := range []string{"UserPromptSubmit", "PreToolUse", "Stop"} {
			m := map[string]any{"session_id": "s", "hook_event_name": ev, "cwd": "/p", "prompt": "/deploy now",
				"tool_name": "Bash", "tool_use_id": "t1"}
			if field != "agent_id" || ev == "PreToolUse" {
				m[field] = big
			}
			b, _ := json.Marshal(m)
			hooked = append(append(hooked, hooks.Enrich(b, now, hooks.Options{})...), '\n')
			raw = append(append(raw, b...), '\n')
		}
		f.Add(hooked)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			return
		}
		var text bytes.Buffer
		lines := 0
		add := func(l []byte) {
			text.Write(l)
			text.WriteByte('\n')
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		for i, l := range bytes.Split(data, []byte("\n")) {
			add(l)
			if len(bytes.TrimSpace(l)) > 0 {
				// Each hook call at its own time, as in a session.
				add(hooks.Enrich(l, now.Add(time.Duration(i)*time.Millisecond), hooks.Options{}))
			}
		}
		r := newRig(t, func(o *Options) { o.IdleTimeout = time.Minute })
		if err := os.WriteFile(spool.Path(r.home), text.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		counted := func() int64 {
			st, err := r.db.Stats()
			if err != nil {
				t.Fatal(err)
			}
			n := st.Quarantined
			for _, c := range st.Events {
				n += c
			}
			// An execution refused for its ID is quarantined too (file
			// "(store)": never dropped silently), but it is no line.
			q, err := r.db.Quarantine(0)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range q {
				if e.File == "(store)" {
					n--
				}
			}
			return n
		}
		r.drain()
		r.clk.Add(time.Hour) // past the idle timeout: every execution closes
		r.drain()
		if h := r.c.Health(); h.Stalled {
			t.Fatalf("stalled: %+v", h)
		}
		if got := counted(); got != int64(lines) {
			t.Fatalf("%d lines, %d counted as events or quarantined", lines, got)
		}
		r.restart()
		r.drain()
		if got := counted(); got != int64(lines) {
			t.Fatalf("after a restart: %d lines, %d counted", lines, got)
		}
	})
}
