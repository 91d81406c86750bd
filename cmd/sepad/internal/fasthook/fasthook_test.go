package fasthook

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookRunsFromInit starts this test binary as `BINARY hook --home
// DIR`: the package's init records the payload in DIR's spool and exits 0
// before any test runs, printing nothing.
func TestHookRunsFromInit(t *testing.T) {
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], "hook", "--home", home)
	cmd.Env = append(os.Environ(), "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))
	cmd.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"Stop","cwd":"/tmp"}`)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("hook: %v\n%s", err, errOut.String())
	}
	if out.Len() != 0 || strings.Contains(errOut.String(), "PASS") {
		t.Errorf("the hook printed %q, %q (or the tests ran)", out.String(), errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(home, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"session_id":"s1"`)) || bytes.Count(b, []byte("\n")) != 1 {
		t.Errorf("spool: %s", b)
	}
}
