package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// TestNoticeAtSessionStart (issue 15 point 1): when the daemon would roll
// back a person's edit, the next real Claude Code session in the project
// shows it: the SessionStart hook answers {"systemMessage": ...}, which the
// stream with --include-hook-events carries; the notice is shown once,
// and `sepad notices` lists it until then.
func TestNoticeAtSessionStart(t *testing.T) {
	for _, c := range clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			e := newEnv(t, c)
			skill := e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.write(filepath.Join(e.State, "config.yaml"), "mutation:\n  method: sepa\n  min_samples: 5\n  debounce: 100ms\n  cooldown_executions: 0\n")
			e.Env = append(e.Env, "SEPA_CONFIG="+filepath.Join(e.State, "config.yaml"))
			d := e.startDaemon()

			h := &hookDriver{e: e, session: "cc000000-0000-4000-8000-000000000001"}
			for i := 0; i < 5; i++ {
				h.turn(0, noticeGood)
			}
			h.release()
			time.Sleep(400 * time.Millisecond)
			e.write(".claude/skills/deploy/SKILL.md", strings.Replace(deploySkill, "\n# ", "\nJust try random commands.\n\n# ", 1))
			edit, _ := os.ReadFile(skill)
			time.Sleep(700 * time.Millisecond) // the watcher's debounce
			for i := 0; i < 5; i++ {
				h.turn(4, "Error: the deploy failed.\nI was unable to finish the release.")
			}
			h.release()
			var pending []struct{ Project, Text string }
			waitUntil(t, "a pending notice", func() bool {
				out, _, code := e.sepad("notices", "--json")
				var doc struct {
					Notices []struct{ Project, Text string } `json:"notices"`
				}
				if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
					return false
				}
				pending = doc.Notices
				return len(pending) > 0
			})
			if len(pending) != 1 || !strings.Contains(pending[0].Text, "sepad would roll back deploy v2 → v1") ||
				!strings.Contains(pending[0].Text, "sepad rollback deploy") {
				t.Fatalf("pending notices %+v", pending)
			}
			if b, _ := os.ReadFile(skill); !bytes.Equal(b, edit) {
				t.Fatal("the person's edit was rewritten")
			}

			e.API.Set("hello", fakeclaude.Script{{Text: "Hello."}})
			out, code := e.claude("-p", "say hello @@hello@@", "--include-hook-events")
			if code != 0 {
				t.Fatalf("claude exit %d\n%s", code, out)
			}
			msgs := systemMessages(t, out)
			if len(msgs) != 1 || msgs[0] != pending[0].Text {
				t.Fatalf("systemMessages in the stream: %q, want the notice %q\nstream:\n%s", msgs, pending[0].Text, hookLines(out))
			}
			// Shown once: the next session prints nothing.
			out, _ = e.claude("-p", "say hello @@hello@@", "--include-hook-events")
			if msgs := systemMessages(t, out); len(msgs) != 0 {
				t.Fatalf("the notice was shown twice: %q", msgs)
			}
			if out, _, _ := e.sepad("notices", "--json"); strings.Contains(out, "would roll back") {
				t.Fatalf("sepad notices after the session: %s", out)
			}
			d.stop()
		})
	}
}

const noticeGood = "## Deployed\n\nThe release is live because all checks passed.\n\n- built\n- pushed\n\n```sh\nmake deploy\n```\n\nNext steps: watch the dashboards."

// systemMessages returns the systemMessage of every hook answer in a
// stream-json output (the hook_response records of --include-hook-events).
func systemMessages(t *testing.T, stream string) []string {
	t.Helper()
	var out []string
	sc := bufio.NewScanner(strings.NewReader(stream))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte("systemMessage")) {
			continue
		}
		var rec map[string]any
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		for _, k := range []string{"output", "stdout"} {
			s, _ := rec[k].(string)
			var ans struct {
				SystemMessage string `json:"systemMessage"`
			}
			if s != "" && json.Unmarshal([]byte(strings.TrimSpace(s)), &ans) == nil && ans.SystemMessage != "" {
				out = append(out, ans.SystemMessage)
				break
			}
		}
	}
	return out
}

func hookLines(stream string) string {
	var b strings.Builder
	for _, l := range strings.Split(stream, "\n") {
		if strings.Contains(l, "hook") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 150; i++ {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// hookDriver sends hook payloads through the installed hook binary, as
// Claude Code would, for turns that invoke the deploy skill.
type hookDriver struct {
	e       *env
	session string
	n       int
}

func (h *hookDriver) hook(ev map[string]any) {
	ev["session_id"] = h.session
	ev["cwd"] = h.e.Project
	ev["transcript_path"] = filepath.Join(h.e.Home, ".claude", "projects", "x", h.session+".jsonl")
	b, _ := json.Marshal(ev)
	cmd := exec.Command(hookBin, "hook")
	cmd.Dir = h.e.Project
	cmd.Env = h.e.baseEnv()
	cmd.Stdin = bytes.NewReader(b)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		h.e.t.Errorf("hook: %v, stdout %q", err, out.String())
	}
}

func (h *hookDriver) turn(failed int, answer string) {
	h.hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "ship the release"})
	h.n++
	id := fmt.Sprintf("toolu_%04d", h.n)
	in := map[string]any{"skill": "deploy"}
	h.hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": in, "tool_use_id": id})
	h.hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_input": in, "tool_use_id": id, "tool_response": map[string]any{"success": true, "commandName": "deploy"}, "duration_ms": 2})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		h.n++
		id := fmt.Sprintf("toolu_%04d", h.n)
		in := map[string]any{"command": fmt.Sprintf("make step%d", i)}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			h.hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": in, "tool_use_id": id})
			if i < failed {
				h.hook(map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": in, "tool_use_id": id, "error": "Exit code 2\nmake: *** failed", "duration_ms": 900})
			} else {
				h.hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": in, "tool_use_id": id, "tool_response": map[string]any{"stdout": "ok", "stderr": ""}, "duration_ms": 900})
			}
		}(i)
	}
	wg.Wait()
	h.hook(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": answer})
}

func (h *hookDriver) release() {
	h.hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "thanks, what is next on the list?"})
}
