package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctorInstructions: the doctor tells a spool whose SessionStart
// lines list no instruction files (a hook older than this sepad) from one
// whose lines do.
func TestDoctorInstructions(t *testing.T) {
	for _, c := range []struct {
		name, spool string
		want, not   []string
	}{
		{"old hook",
			`{"session_id":"s","hook_event_name":"SessionStart","sepa":{"v":1,"ts":"2026-11-24T09:00:00Z"}}` + "\n",
			[]string{"WARN  SessionStart events list no instruction files", "WARN  no InstructionsLoaded event seen"},
			[]string{"OK    SessionStart lists the instruction files"}},
		{"this hook",
			`{"session_id":"s","hook_event_name":"SessionStart","sepa":{"v":1,"ts":"2026-11-24T09:00:00Z","instructions":{"version":"0123456789ab","files":[{"path":"/p/CLAUDE.md","hash":"aaaaaaaaaaaa"}]}}}` + "\n" +
				`{"session_id":"s","hook_event_name":"InstructionsLoaded","file_path":"/p/CLAUDE.md","load_reason":"session_start"}` + "\n",
			[]string{"OK    SessionStart lists the instruction files", "each session's CLAUDE.md version is known"},
			[]string{"WARN  SessionStart events list no instruction files", "WARN  no InstructionsLoaded event seen", "_session"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			home, state, proj := filepath.Join(root, "home"), filepath.Join(root, "state"), filepath.Join(root, "proj")
			env := []string{"HOME=" + home, "SEPA_HOME=" + state}
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			if _, errOut, code := sepad(t, env, nil, "install", "--project", proj); code != 0 {
				t.Fatal(errOut)
			}
			writeFile(t, filepath.Join(state, "events.jsonl"), c.spool)
			out, _, _ := sepad(t, env, nil, "doctor", "--project", proj)
			for _, w := range c.want {
				contains(t, out, w)
			}
			for _, w := range c.not {
				if strings.Contains(out, w) {
					t.Errorf("doctor says %q:\n%s", w, out)
				}
			}
		})
	}
}
