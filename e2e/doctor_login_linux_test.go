package e2e

import (
	"strings"
	"testing"
)

// TestDoctorDaemonLogin: doctor reads the running daemon's environment
// (Linux /proc): with no credentials there it says evolve's claude would
// be "Not logged in" and how to give it some; with ANTHROPIC_API_KEY in
// it, that it can log in. Never the key's value.
func TestDoctorDaemonLogin(t *testing.T) {
	p := newProject(t)
	p.config("")
	d := startDaemonExactEnv(t, p, append([]string{"PATH=/usr/bin:/bin"}, p.env()...))
	waitFor(t, "the daemon's socket", func() bool { return status(t, p.home).Daemon.Running })
	out, errOut, _ := sepad(t, p.env(), nil, "doctor", "--project", p.dir)
	if !strings.Contains(out, `evolve would fail with "Not logged in"`) || !strings.Contains(out, "HOME="+p.userHome) || !strings.Contains(out, "Environment=") {
		t.Errorf("doctor with a daemon without credentials:\n%s%s", out, errOut)
	}
	d.kill()
	startDaemonExactEnv(t, p, append([]string{"PATH=/usr/bin:/bin", "ANTHROPIC_API_KEY=sk-test-secret"}, p.env()...))
	waitFor(t, "the daemon's socket", func() bool { return status(t, p.home).Daemon.Running })
	out, errOut, _ = sepad(t, p.env(), nil, "doctor", "--project", p.dir)
	if !strings.Contains(out, "OK    the daemon's environment has ANTHROPIC_API_KEY") || strings.Contains(out, "sk-test-secret") {
		t.Errorf("doctor with a daemon holding a key:\n%s%s", out, errOut)
	}
}
