package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImportForeignProject: a Windows log imported through a daemon on
// Linux names its project C:\Users\ana\shop. The daemon never joins that
// to its working directory, even where the working directory holds a
// directory of that very name with a skill in it: the project is foreign
// (the daemon says so), not watched: nothing under its working directory
// is named in its log. (mutation/TestForeignProjectsNotWatched shows the
// trap skill recorded when the path is joined to the working directory.)
func TestImportForeignProject(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("C:\\Users is a path on Windows")
	}
	home, wd := t.TempDir(), t.TempDir()
	for _, p := range []string{`C:\Users\ana\shop`, "C:/Users/ana/shop"} {
		trap := filepath.Join(wd, filepath.FromSlash(p), ".claude", "skills", "trap", "SKILL.md")
		os.MkdirAll(filepath.Dir(trap), 0o755)
		os.WriteFile(trap, []byte("---\nname: trap\n---\nnot this machine's\n"), 0o644)
	}
	cmd := exec.Command(sepadBin, "run", "--home", home, "--log-level", "info")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "SEPA_CONFIG=", "XDG_CONFIG_HOME="+filepath.Join(home, "noconfig"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var exited error
	stopped := false
	stop := func(sig syscall.Signal) {
		if !stopped {
			cmd.Process.Signal(sig)
			select {
			case exited = <-done:
			case <-time.After(30 * time.Second):
				t.Errorf("the daemon did not stop on %v", sig)
			}
			stopped = true
		}
	}
	t.Cleanup(func() { stop(syscall.SIGKILL) })
	waitFor(t, "the daemon's socket", func() bool {
		_, err := os.Stat(filepath.Join(home, "sepad.sock"))
		return err == nil
	})
	log := filepath.Join(t.TempDir(), "hooks.jsonl")
	var b []byte
	for n, cwd := range []string{`C:\Users\ana\shop`, "C:/Users/ana/shop"} {
		for i, l := range []map[string]any{
			{"hook_event_name": "UserPromptSubmit", "prompt": "/trap"},
			{"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": map[string]any{"skill": "trap"}, "tool_use_id": "toolu_1"},
			{"hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_input": map[string]any{"skill": "trap"}, "tool_use_id": "toolu_1", "tool_response": "ok"},
			{"hook_event_name": "Stop"},
			{"hook_event_name": "SessionEnd", "reason": "exit"},
		} {
			l["session_id"], l["cwd"] = fmt.Sprintf("win-%d", n+1), cwd
			l["timestamp"] = time.Date(2026, 3, 1, 10, n, i, 0, time.UTC).Format(time.RFC3339)
			line, _ := json.Marshal(l)
			b = append(append(b, line...), '\n')
		}
	}
	os.WriteFile(log, b, 0o644)
	env := queryEnv(home)
	out, errOut, code := sepad(t, env, nil, "import", log)
	if code != 0 || !strings.Contains(out, `not a path on this system`) || !strings.Contains(out, `C:\Users\ana\shop`) {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	waitFor(t, "the imported execution", func() bool {
		out, _, code := sepad(t, env, nil, "api", "/v1/executions")
		return code == 0 && strings.Contains(out, `"win-1`) && strings.Contains(out, `"win-2`)
	})
	// The two skills the imported executions name, nothing else.
	var st struct {
		Skills int `json:"skills"`
	}
	body, _, _ := sepad(t, env, nil, "api", "/v1/status")
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Skills != 2 {
		t.Errorf("the store knows %d skills (want the 2 the log names): %v\n%s", st.Skills, err, body)
	}
	stop(syscall.SIGTERM)
	if exited != nil {
		t.Errorf("the daemon exited: %v", exited)
	}
	if s := stderr.String(); strings.Contains(s, wd) || !strings.Contains(s, "project is not a path on this system") {
		t.Errorf("the daemon's log:\n%s", s)
	}
}
