package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestServiceInstall writes the user unit (without starting it: there is no
// user service manager in tests), checks it runs this binary's `run`, and
// removes it again.
func TestServiceInstall(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the systemd unit is Linux-only")
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "SEPA_HOME=" + filepath.Join(home, "state")}
	out, errOut, code := sepad(t, env, nil, "install", "--service", "--no-start")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "sepad.service")
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "ExecStart="+sepadBin+" run --home "+filepath.Join(home, "state")) {
		t.Fatalf("unit:\n%s", b)
	}
	contains(t, string(b), "\nExecReload=/bin/kill -HUP $MAINPID\n") // SIGHUP reloads the configuration
	contains(t, out, "reload its configuration with: sepad reload")
	contains(t, out, "undo with: sepad uninstall --service")
	contains(t, out, "systemctl --user enable --now sepad.service")
	out, _, code = sepad(t, env, nil, "uninstall", "--service", "--dry-run")
	if code != 0 || !strings.Contains(out, "would remove "+unit) {
		t.Fatalf("dry run: %d %s", code, out)
	}
	if _, err := os.Stat(unit); err != nil {
		t.Fatal("dry run removed the unit")
	}
}

// TestDoctor runs the checks against a project with the hook installed and
// a spool from an old Claude Code (no PostToolUseFailure, no final answers).
func TestDoctor(t *testing.T) {
	home := t.TempDir()
	proj := filepath.Join(home, "proj")
	state := filepath.Join(home, "state")
	os.MkdirAll(proj, 0o755)
	env := []string{"HOME=" + home, "SEPA_HOME=" + state}
	if _, errOut, code := sepad(t, env, nil, "install", "--project", proj); code != 0 {
		t.Fatal(errOut)
	}
	os.MkdirAll(state, 0o700)
	writeFile(t, filepath.Join(state, "events.jsonl"), `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read"}`+"\n"+`{"session_id":"s","hook_event_name":"Stop"}`+"\n")
	out, _, code := sepad(t, env, nil, "doctor", "--project", proj)
	if code != 1 {
		t.Fatalf("doctor exit %d (no daemon runs: want 1):\n%s", code, out)
	}
	for _, w := range []string{"OK    the hook is installed for all 16 events", "OK    the hook's binary", "OK    state directory",
		"FAIL  no daemon answers", "WARN  no PostToolUseFailure event seen", "WARN  Stop events carry no final answer", "WARN  PostToolUse events carry no duration_ms"} {
		contains(t, out, w)
	}
}

// TestServiceInstallWithoutServiceManager: when systemctl fails (no user
// bus, as in a container), install says which commands are still to run,
// by name, not "the commands above", of which only the failed one was
// printed. systemctl here is a stand-in that fails as it does without a
// user bus.
func TestServiceInstallWithoutServiceManager(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the systemd unit is Linux-only")
	}
	home := t.TempDir()
	bin := filepath.Join(home, "bin")
	os.MkdirAll(bin, 0o755)
	writeFile(t, filepath.Join(bin, "systemctl"), "#!/bin/sh\necho 'Failed to connect to bus: No medium found' >&2\nexit 1\n")
	os.Chmod(filepath.Join(bin, "systemctl"), 0o755)
	env := []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=", "SEPA_HOME=" + filepath.Join(home, "state"), "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	out, errOut, code := sepad(t, env, nil, "install", "--service")
	if code != 1 {
		t.Fatalf("install --service with systemctl failing: exit %d\n%s%s", code, out, errOut)
	}
	unit := filepath.Join(home, ".config", "systemd", "user", "sepad.service")
	if _, err := os.Stat(unit); err != nil {
		t.Fatalf("the unit was not written: %v", err)
	}
	if strings.Contains(errOut, "commands above") {
		t.Errorf("the error points at commands it never printed:\n%s%s", out, errOut)
	}
	contains(t, errOut, "  systemctl --user daemon-reload\n  systemctl --user enable --now sepad.service\n")
	contains(t, errOut, unit)
	contains(t, errOut, "`sepad run`")

	// The daemon claims the user's Claude Code directory when it starts;
	// removing the service removes that claim too (a walk found
	// ~/.claude/.sepad-home left after every uninstall).
	claim := filepath.Join(home, ".claude", ".sepad-home")
	writeFile(t, claim, filepath.Join(home, "state")+"\n")
	out, errOut, code = sepad(t, env, nil, "uninstall", "--service")
	if code != 0 || !strings.Contains(out, "removed "+claim) {
		t.Fatalf("uninstall --service: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(claim); !os.IsNotExist(err) {
		t.Errorf("uninstall --service left %s: %v", claim, err)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Errorf("uninstall --service left the unit: %v", err)
	}
}
