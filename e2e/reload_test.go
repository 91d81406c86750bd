package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestReload: `sepad reload` is the reload of every service manager (the
// systemd unit's ExecReload, launchd's missing one): it makes the running
// daemon read its configuration again, which the daemon's log says; with
// no daemon it says there is nothing to reload and exits 1.
func TestReload(t *testing.T) {
	home := shortTempDir(t)
	writeSpool(t, home, nil)
	cfg := filepath.Join(home, "config.yaml")
	writeFile(t, cfg, "collector:\n  idle_timeout: 10m\n")
	env := append(queryEnv(home), "SEPA_CONFIG="+cfg)

	out, errOut, code := sepad(t, env, nil, "reload", "--home", home)
	if code != 1 || out != "" || !strings.Contains(errOut, "no sepad daemon answers on") || !strings.Contains(errOut, "nothing to reload") {
		t.Errorf("reload without a daemon: exit %d, stdout %q, stderr %q", code, out, errOut)
	}

	logPath := filepath.Join(home, "daemon.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(sepadBin, "run", "--home", home, "--log-level", "info")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, stderr: nil, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	t.Cleanup(d.kill)
	waitFor(t, "the daemon's socket", func() bool { return status(t, home).Daemon.Running })

	writeFile(t, cfg, "collector:\n  idle_timeout: 20m\n")
	out, errOut, code = sepad(t, env, nil, "reload", "--home", home)
	want := "sent SIGHUP to the sepad daemon (pid " + strconv.Itoa(cmd.Process.Pid) + ")"
	if code != 0 || !strings.HasPrefix(out, want) || errOut != "" {
		t.Fatalf("reload: exit %d, stdout %q, stderr %q; want %q", code, out, errOut, want)
	}
	// The command says what the daemon did, as its log does.
	if !strings.Contains(out, "the daemon read "+cfg) || !strings.Contains(out, "waits for a restart of the daemon: collector.idle_timeout") {
		t.Errorf("reload does not say what it did: %q", out)
	}
	waitFor(t, "the daemon's log to say it reloaded", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "config reloaded")
	})
	// idle_timeout was given to the collector at its start: the log says
	// it waits for a restart instead of pretending it changed.
	waitFor(t, "the daemon's log to name the setting that needs a restart", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "take effect only when the daemon starts again") && strings.Contains(string(b), "keys=collector.idle_timeout")
	})
	// Prices are read as the daemon goes: applied, no restart named.
	writeFile(t, cfg, "collector:\n  idle_timeout: 20m\npricing:\n  models:\n    claude-test:\n      input: 2\n")
	out, errOut, code = sepad(t, env, nil, "reload", "--home", home)
	if code != 0 || !strings.Contains(out, "applied now: pricing.models") || strings.Contains(out, "restart") {
		t.Fatalf("reload: exit %d: %q %s", code, out, errOut)
	}
	waitFor(t, "the daemon's log to say the prices were applied", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "applied=pricing.models")
	})
	if b, _ := os.ReadFile(logPath); strings.Count(string(b), "take effect only when the daemon starts again") != 1 {
		t.Errorf("a restart was asked for a price change:\n%s", b)
	}

	// A configuration that does not load is refused and named.
	writeFile(t, cfg, "collector:\n  idle_timeout: soon\n")
	if _, errOut, code := sepad(t, env, nil, "reload", "--home", home); code != 1 || !strings.Contains(errOut, "the daemon kept its previous configuration") || !strings.Contains(errOut, "idle_timeout") {
		t.Fatalf("reload of a bad file: exit %d: %s", code, errOut)
	}
	waitFor(t, "the daemon's log to say it kept the previous configuration", func() bool {
		b, _ := os.ReadFile(logPath)
		return strings.Contains(string(b), "config reload failed; keeping the previous configuration") && strings.Contains(string(b), "idle_timeout")
	})
	if st := status(t, home); !st.Daemon.Running {
		t.Error("the daemon stopped after a bad reload")
	}
	if out, _, code := sepad(t, env, nil, "reload", "--home", home, "extra"); code != 2 {
		t.Errorf("reload with an argument: exit %d %q", code, out)
	}
}

// TestReloadAfterConfigInit: a daemon started without a configuration
// file reads the default one once `sepad config init` wrote it, at the
// next `sepad reload`, which says so.
func TestReloadAfterConfigInit(t *testing.T) {
	home := shortTempDir(t)
	writeSpool(t, home, nil)
	xdg := filepath.Join(home, "xdg")
	env := append(queryEnv(home), "SEPA_CONFIG=", "XDG_CONFIG_HOME="+xdg)
	cmd := exec.Command(sepadBin, "run", "--home", home)
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, stderr: nil, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	t.Cleanup(d.kill)
	waitFor(t, "the daemon's socket", func() bool { return status(t, home).Daemon.Running })

	if out, errOut, code := sepad(t, env, nil, "config", "init"); code != 0 {
		t.Fatalf("config init: exit %d %s %s", code, out, errOut)
	}
	cfg := filepath.Join(xdg, "sepa", "config.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfg, string(b)+"\npricing:\n  models:\n    claude-test:\n      input: 2\n")
	out, errOut, code := sepad(t, env, nil, "reload", "--home", home)
	if code != 0 || !strings.Contains(out, "the daemon read "+cfg) || !strings.Contains(out, "applied now: pricing.models\n") || strings.Contains(out, "restart") {
		t.Fatalf("reload after config init: exit %d %q %s", code, out, errOut)
	}
}
