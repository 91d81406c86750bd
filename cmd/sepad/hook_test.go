package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/spool"
)

// runHookCmd runs `sepad hook args...` in-process with stdin.
func runHookCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = runMain(append([]string{"hook"}, args...), strings.NewReader(stdin), &o, &e)
	return code, o.String(), e.String()
}

func spoolLines(t *testing.T, home string) []string {
	t.Helper()
	b, err := os.ReadFile(spool.Path(home))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestHookCommand(t *testing.T) {
	payload := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"` + strings.Repeat("x", 3000) + `"}}`
	for _, tc := range []struct {
		name      string
		args      []string
		stdin     string
		stderr    string // substring; "" means empty
		event     string
		cutFields int
	}{
		{"payload", nil, payload, "", "PostToolUse", 0},
		{"max-field", []string{"--max-field", "1000"}, payload, "", "PostToolUse", 1},
		{"bad flag keeps the event", []string{"--nope"}, payload, "ignoring bad flags", "PostToolUse", 0},
		{"bad max-field value", []string{"--max-field", "lots"}, payload, "ignoring bad flags", "PostToolUse", 0},
		{"empty stdin", nil, "", "", event.Quarantined, 0},
		{"not json", nil, "<html>502</html>", "", event.Quarantined, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "h")
			code, out, errs := runHookCmd(t, tc.stdin, append([]string{"--home", home}, tc.args...)...)
			if code != 0 || out != "" {
				t.Fatalf("exit %d, stdout %q", code, out)
			}
			if tc.stderr == "" && errs != "" || !strings.Contains(errs, tc.stderr) || strings.Count(errs, "\n") > 1 {
				t.Fatalf("stderr %q, want one line containing %q", errs, tc.stderr)
			}
			lines := spoolLines(t, home)
			if len(lines) != 1 {
				t.Fatalf("%d lines", len(lines))
			}
			ev, _ := event.ParseLine([]byte(lines[0]))
			if ev.HookEvent != tc.event || ev.Sepa == nil || len(ev.Sepa.Cut) != tc.cutFields {
				t.Fatalf("line %.300s", lines[0])
			}
		})
	}
}

func TestHookCommandNeverFails(t *testing.T) {
	// The state directory cannot be created (a file is in the way): still
	// exit 0, nothing on stdout, one line on stderr.
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	code, out, errs := runHookCmd(t, `{"session_id":"s","hook_event_name":"Stop"}`, "--home", filepath.Join(blocker, "h"))
	if code != 0 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "line lost") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = runHookCmd(t, "", "--help")
	if code != 0 || out != "" || !strings.Contains(errs, "usage: sepad hook") {
		t.Fatalf("--help: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestHookCommandReadsNoConfig(t *testing.T) {
	// A broken config file in every place the config package looks must
	// not matter to the hook.
	dir := t.TempDir()
	bad := filepath.Join(dir, "config.yaml")
	os.WriteFile(bad, []byte("::: not yaml"), 0o600)
	t.Setenv("SEPA_CONFIG", bad)
	t.Setenv("XDG_CONFIG_HOME", dir)
	home := filepath.Join(dir, "h")
	code, out, errs := runHookCmd(t, `{"session_id":"s","hook_event_name":"Stop"}`, "--home", home)
	if code != 0 || out != "" || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(spoolLines(t, home)[0]), &v); err != nil {
		t.Fatal(err)
	}
}
