package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunBadConfig: a bad config file stops `sepad run` at start-up with
// an error naming the file, the line and the key, before any state is
// created.
func TestRunBadConfig(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	bad := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, bad, "collector:\n  batch_interval: 50ms\n  batch_lines: 0\n")
	_, errOut, code := sepad(t, []string{"SEPA_HOME=" + home}, nil, "run", "--home", home, "--config", bad)
	if code == 0 || !strings.Contains(errOut, bad+":3") || !strings.Contains(errOut, "collector.batch_lines") {
		t.Fatalf("exit %d, stderr %q: want a failure naming %s:3 and collector.batch_lines", code, errOut, bad)
	}
	if _, err := os.Stat(filepath.Join(home, "sepa.db")); !os.IsNotExist(err) {
		t.Errorf("a database was created before the config was checked: %v", err)
	}
	writeFile(t, bad, "colector:\n  batch_lines: 10\n")
	if _, errOut, code = sepad(t, nil, nil, "run", "--home", home, "--config", bad); code == 0 || !strings.Contains(errOut, bad+":1") || !strings.Contains(errOut, "colector") {
		t.Fatalf("unknown key: exit %d, stderr %q", code, errOut)
	}
}

// TestReloadBadConfigKeepsRunning: SIGHUP with a broken config file logs
// the error (file, line, key) and keeps the previous configuration; the
// daemon goes on answering, and a fixed file is then taken.
func TestReloadBadConfigKeepsRunning(t *testing.T) {
	home := shortTempDir(t)
	cfg := filepath.Join(home, "config.yaml")
	writeFile(t, cfg, "skills:\n  deploy: complex\n")
	d := startDaemon(t, home, "--config", cfg, "--log-level", "info")
	// waitStatus waits until the daemon itself answers (not the CLI
	// reading the database): before that, SIGHUP would not be handled yet.
	waitStatus := func() {
		t.Helper()
		for i := 0; i < 200; i++ {
			out, _, code := sepad(t, queryEnv(home), nil, "status", "--json", "--home", home)
			var s statusDoc
			if code == 0 && json.Unmarshal([]byte(out), &s) == nil && s.Daemon.Running {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("the daemon does not answer `sepad status`")
	}
	waitStatus()
	writeFile(t, cfg, "skills:\n  deploy: enormous\n")
	d.cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-d.done:
		t.Fatalf("the daemon exited on a bad reload: %v\n%s", err, d.stderr)
	default:
	}
	waitStatus()
	writeFile(t, cfg, "skills:\n  deploy: simple\n")
	d.cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(300 * time.Millisecond)
	d.stop(t)
	log := d.stderr.String()
	if !strings.Contains(log, "config reload failed") || !strings.Contains(log, cfg+":2") || !strings.Contains(log, "skills.deploy") {
		t.Errorf("no located reload error in the log:\n%s", log)
	}
	if !strings.Contains(log, "config reloaded") {
		t.Errorf("the fixed file was not reloaded:\n%s", log)
	}
}
