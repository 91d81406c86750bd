package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain runs main instead of the tests when asked to (the test
// binary is then sepad-hook).
func TestMain(m *testing.M) {
	if os.Getenv("SEPAD_HOOK_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// TestHook runs the binary with and without the leading "hook" argument
// (settings with "args", or a Claude Code that ignores them): both record
// the payload, exit 0 and print nothing.
func TestHook(t *testing.T) {
	for _, args := range [][]string{{"hook", "--home"}, {"--home"}} {
		home := t.TempDir()
		cmd := exec.Command(os.Args[0], append(args, home)...)
		cmd.Env = append(os.Environ(), "SEPAD_HOOK_TEST_MAIN=1", "HOME="+home, "CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"))
		cmd.Stdin = strings.NewReader(`{"session_id":"s1","hook_event_name":"SessionEnd","cwd":"/tmp"}`)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		if out.Len() != 0 || errOut.Len() != 0 {
			t.Errorf("%v printed %q, %q", args, out.String(), errOut.String())
		}
		b, err := os.ReadFile(filepath.Join(home, "events.jsonl"))
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if !bytes.Contains(b, []byte(`"hook_event_name":"SessionEnd"`)) || bytes.Count(b, []byte("\n")) != 1 {
			t.Errorf("%v: spool %s", args, b)
		}
	}
}
