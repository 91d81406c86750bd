package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// asyncSkips are scenarios that install sepad their own way.
var asyncSkips = map[string]bool{"install_shell_form": true, "http_transport": true}

// TestAsyncHooks runs the scenarios with sepad's handlers marked
// "async": true (Claude Code runs the hook in the background) and measures what that costs the
// spool against the recorded synchronous run of the same scenario: events
// lost per event name, and lines out of order (a post event before its
// pre event, an event of a turn after the turn's Stop). The scenario's own
// check says whether grouping stayed exact. docs/claude-code.md, "Async
// hooks", has the figures; it runs with SEPAD_ASYNC_SUITE=1.
func TestAsyncHooks(t *testing.T) {
	if os.Getenv("SEPAD_ASYNC_SUITE") != "1" {
		t.Skip("async hooks: measured with SEPAD_ASYNC_SUITE=1 (docs/claude-code.md, \"Async hooks\")")
	}
	for _, c := range clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			for _, sc := range scenarios {
				if !sc.on(c.Version) || asyncSkips[sc.name] {
					continue
				}
				t.Run(sc.name, func(t *testing.T) {
					e := newEnv(t, c)
					makeAsync(t, filepath.Join(e.Project, ".claude", "settings.json"))
					sc.run(e)
					spool := e.spool()
					rec, err := os.ReadFile(filepath.Join("..", "..", "testdata", "claude-code", c.Version, sc.name, "events.jsonl"))
					if err != nil {
						t.Fatalf("no synchronous recording to compare with: %v", err)
					}
					got, want := countEvents(spool), countEvents(rec)
					lost := 0
					for name, n := range want {
						if got[name] < n {
							lost += n - got[name]
							t.Logf("ASYNC %s: %s %d of %d", sc.name, name, got[name], n)
						}
					}
					for name, n := range got {
						if n > want[name] {
							t.Logf("ASYNC %s: %s %d, sync %d", sc.name, name, n, want[name])
						}
					}
					t.Logf("ASYNC %s: lines %d (sync %d), lost %d, out of order %d (sync %d)", sc.name, lines(spool), lines(rec), lost, outOfOrder(spool), outOfOrder(rec))
					xs := score(t, filepath.Join(e.State, "events.jsonl"))
					sc.check(t, c.Version, xs)
				})
			}
		})
	}
}

// makeAsync adds "async": true to every handler of the settings file but
// SessionStart's (whose answer Claude Code shows only when it waits).
func makeAsync(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	hooks, _ := doc["hooks"].(map[string]any)
	n := 0
	for ev, groups := range hooks {
		if ev == "SessionStart" {
			continue
		}
		for _, g := range groups.([]any) {
			for _, h := range g.(map[string]any)["hooks"].([]any) {
				h.(map[string]any)["async"] = true
				n++
			}
		}
	}
	if n == 0 {
		t.Fatalf("no handler in %s", path)
	}
	if b, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

type spoolLine struct {
	Session   string `json:"session_id"`
	Agent     string `json:"agent_id"`
	Event     string `json:"hook_event_name"`
	ToolUseID string `json:"tool_use_id"`
	PromptID  string `json:"prompt_id"`
}

func eachLine(spool []byte, f func(spoolLine)) {
	sc := bufio.NewScanner(bytes.NewReader(spool))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var l spoolLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			f(l)
		}
	}
}

func lines(spool []byte) int { return bytes.Count(spool, []byte("\n")) }

func countEvents(spool []byte) map[string]int {
	n := map[string]int{}
	eachLine(spool, func(l spoolLine) { n[l.Event]++ })
	return n
}

// outOfOrder counts lines that came before an event they follow: a
// PostToolUse(Failure) before its PreToolUse, a tool event or a
// SubagentStop of an agent after its session's Stop for the same prompt.
func outOfOrder(spool []byte) int {
	pre := map[string]bool{}
	stopped := map[string]bool{} // session + prompt_id
	n := 0
	eachLine(spool, func(l spoolLine) {
		key := l.Session + "/" + l.PromptID
		switch l.Event {
		case "PreToolUse":
			pre[l.ToolUseID] = true
		case "PostToolUse", "PostToolUseFailure":
			if l.ToolUseID != "" && !pre[l.ToolUseID] {
				n++
			}
		case "Stop":
			if l.Agent == "" && l.PromptID != "" {
				stopped[key] = true
			}
		}
		if l.Event != "Stop" && l.Event != "SessionEnd" && l.PromptID != "" && stopped[key] {
			n++
		}
	})
	return n
}
