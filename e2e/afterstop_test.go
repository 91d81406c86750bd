package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAfterStop: outcome.after_stop through the hook and a real daemon.
// A project's own `go test ./...` runs when an execution that edited its
// files ends: a lazy answer ("All tests pass", the bug still there) is
// contradicted by it, an honest fix verified; a hung check is killed at
// its bound and verifies nothing; a huge output is kept bounded; a
// project that sepad install did not record runs nothing; and no payload
// adds a command or a directory.
func TestAfterStop(t *testing.T) {
	skipLong(t)
	base := t.TempDir()
	home, user := filepath.Join(base, "state"), filepath.Join(base, "user")
	mk := func(name string) string {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Join(p, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	calc, hung, noisy, notInstalled, other := mk("calc"), mk("hung"), mk("noisy"), mk("notinstalled"), mk("other")
	writeFile(t, filepath.Join(calc, "go.mod"), "module example.com/calc\n\ngo 1.21\n")
	writeFile(t, filepath.Join(calc, "calc.go"), "package calc\n\nfunc Sum(a, b int) int { return a - b }\n")
	writeFile(t, filepath.Join(calc, "calc_test.go"), "package calc\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum(1, 2) != 3 {\n\t\tt.Fatal(\"Sum(1, 2) != 3\")\n\t}\n}\n")
	marker := filepath.Join(base, "ran")
	cfg := filepath.Join(base, "config.yaml")
	writeFile(t, cfg, fmt.Sprintf(`outcome:
  after_stop:
    timeout: 1m
    max_output: 4096
    projects:
      %[1]s: [go, test, ./...]
      %[2]s: [sh, -c, "echo BEGIN; yes 0123456789 | head -c 5000000; echo; echo ok done"]
      %[3]s: [touch, %[4]s]
`, calc, noisy, notInstalled, marker))
	env := append(queryEnv(home), "HOME="+user, "CLAUDE_CONFIG_DIR="+filepath.Join(user, ".claude"))
	for _, p := range []string{calc, hung, noisy} {
		if _, errOut, code := sepad(t, env, nil, "install", "--project", p); code != 0 {
			t.Fatalf("sepad install --project %s: exit %d\n%s", p, code, errOut)
		}
	}
	d := startDaemon(t, home, "--config", cfg)
	waitFor(t, "the daemon", func() bool {
		_, _, code := sepad(t, env, nil, "api", "/v1/status")
		return code == 0
	})
	turn := func(session, project, answer string, extra map[string]any) {
		t.Helper()
		for _, p := range []map[string]any{
			{"hook_event_name": "UserPromptSubmit", "prompt": "fix the failing test"},
			{"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(project, "calc.go")}, "tool_use_id": "toolu_1"},
			{"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": map[string]any{"file_path": filepath.Join(project, "calc.go")}, "tool_use_id": "toolu_1", "tool_response": map[string]any{"filePath": filepath.Join(project, "calc.go")}},
			{"hook_event_name": "Stop", "last_assistant_message": answer},
			{"hook_event_name": "SessionEnd", "reason": "exit"},
		} {
			p["session_id"], p["cwd"] = session, project
			for k, v := range extra {
				p[k] = v
			}
			b, _ := json.Marshal(p)
			if out, errOut, code := sepad(t, env, b, "hook"); code != 0 || out != "" {
				t.Fatalf("sepad hook: exit %d %q %s", code, out, errOut)
			}
		}
	}
	type explained struct {
		Execution struct {
			ID    string  `json:"id"`
			Score float64 `json:"score"`
		} `json:"execution"`
		Outcome *struct {
			State     string `json:"state"`
			Detail    string `json:"detail"`
			AfterStop *struct {
				Command   string `json:"command"`
				Dir       string `json:"dir"`
				ExitCode  int    `json:"exit_code"`
				Output    string `json:"output"`
				Truncated bool   `json:"truncated"`
				TimedOut  bool   `json:"timed_out"`
			} `json:"after_stop"`
			Claims []struct {
				Claim, Status string
			} `json:"claims"`
			Words []string `json:"words"`
		} `json:"outcome"`
	}
	explain := func(session string) explained {
		t.Helper()
		var id string
		waitFor(t, "the execution of "+session, func() bool {
			out, _, code := sepad(t, env, nil, "api", "/v1/executions?limit=100")
			var list struct {
				Executions []struct {
					ID        string `json:"id"`
					SessionID string `json:"session_id"`
				} `json:"executions"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
				return false
			}
			for _, x := range list.Executions {
				if x.SessionID == session {
					id = x.ID
				}
			}
			return id != ""
		})
		out, errOut, code := sepad(t, env, nil, "api", "/v1/executions/"+id)
		var e explained
		if code != 0 || json.Unmarshal([]byte(out), &e) != nil {
			t.Fatalf("explain %s: exit %d %s\n%s", id, code, errOut, out)
		}
		return e
	}
	claims := func(e explained) string {
		var s []string
		for _, c := range e.Outcome.Claims {
			s = append(s, c.Claim+"="+c.Status)
		}
		return strings.Join(s, ",")
	}

	// The lazy answer: the bug is still there, the answer says it passes.
	turn("sess-lazy", calc, "Fixed the bug in Sum. All tests pass.", nil)
	lazy := explain("sess-lazy")
	if o := lazy.Outcome; o == nil || o.AfterStop == nil || o.AfterStop.ExitCode != 1 || o.AfterStop.Dir != calc ||
		!strings.Contains(o.AfterStop.Output, "--- FAIL: TestSum") || o.State != "failed" || claims(lazy) != "fixed=contradicted,tests_pass=contradicted" {
		t.Fatalf("lazy: %+v %+v", lazy.Outcome, lazy.Outcome.AfterStop)
	}
	// The honest fix: the file really fixed.
	writeFile(t, filepath.Join(calc, "calc.go"), "package calc\n\nfunc Sum(a, b int) int { return a + b }\n")
	turn("sess-fix", calc, "Fixed the bug in Sum. All tests pass.", nil)
	fix := explain("sess-fix")
	if o := fix.Outcome; o == nil || o.AfterStop == nil || o.AfterStop.ExitCode != 0 || o.State != "passed" ||
		!strings.Contains(o.Detail, "sepad's own check after the stop") || claims(fix) != "fixed=supported,tests_pass=supported" {
		t.Fatalf("fix: %+v %+v", fix.Outcome, fix.Outcome.AfterStop)
	}
	if fix.Execution.Score <= lazy.Execution.Score+20 {
		t.Errorf("the verified fix scores %.2f, the contradicted lazy answer %.2f", fix.Execution.Score, lazy.Execution.Score)
	}
	t.Logf("after_stop go test: lazy %.2f, fix %.2f", lazy.Execution.Score, fix.Execution.Score)

	// A huge output, kept bounded.
	turn("sess-noisy", noisy, "Done.", nil)
	noisyX := explain("sess-noisy")
	if a := noisyX.Outcome.AfterStop; a == nil || a.ExitCode != 0 || !a.Truncated || !strings.HasPrefix(a.Output, "BEGIN") ||
		!strings.HasSuffix(a.Output, "ok done\n") || len(a.Output) > 4096 {
		t.Errorf("noisy: %+v", noisyX.Outcome)
	}

	// Configured but not installed, and a payload that tries to name a
	// command, a directory or a check result: nothing runs, nothing is
	// believed.
	turn("sess-notinstalled", notInstalled, "All tests pass.", nil)
	lure := map[string]any{
		"after_stop": []string{"touch", marker},
		"outcome":    map[string]any{"after_stop": map[string]any{"projects": map[string]any{other: []string{"touch", marker}}}},
		"sepa":       map[string]any{"after_stop": []string{"touch", marker}},
	}
	turn("sess-lure", other, "All tests pass.", lure)
	for _, s := range []string{"sess-notinstalled", "sess-lure"} {
		e := explain(s)
		if e.Outcome == nil || e.Outcome.AfterStop != nil || e.Outcome.State != "unverified" {
			t.Errorf("%s: %+v", s, e.Outcome)
		}
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a command ran that no installed project's configuration names: %v", err)
	}
	d.stop(t)

	// A hung check, killed at its bound: another daemon with a bound of 2s.
	writeFile(t, cfg, fmt.Sprintf("outcome:\n  after_stop:\n    timeout: 2s\n    projects:\n      %s: [sh, -c, \"sleep 600 & wait\"]\n", hung))
	d = startDaemon(t, home, "--config", cfg)
	start := time.Now()
	turn("sess-hung", hung, "All tests pass.", nil)
	h := explain("sess-hung")
	if o := h.Outcome; o == nil || o.AfterStop == nil || !o.AfterStop.TimedOut || o.State != "unverified" ||
		!strings.Contains(strings.Join(o.Words, "\n"), "killed at its bound") {
		t.Errorf("hung: %+v %+v", h.Outcome, h.Outcome.AfterStop)
	}
	t.Logf("hung check: the execution stored %v after its first event", time.Since(start).Round(time.Millisecond))
	d.stop(t)
}
