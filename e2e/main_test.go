// Package e2e tests the built sepad binary as users and Claude Code run it:
// real processes, real files, kill -9.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/testbin"
)

// sepadBin is the binary built once for all tests.
var sepadBin string

func TestMain(m *testing.M) {
	if daemon := os.Getenv(lureEnv); daemon != "" {
		os.Exit(runLure(daemon)) // another user's server (lure_test.go)
	}
	dir, err := os.MkdirTemp("", "sepad-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Linked at most once per source tree (internal/testbin): unchanged
	// since the last run, or built by another package's tests, it is
	// not linked again.
	bins, err := testbin.Build(dir, "sepad")
	if err != nil {
		fmt.Fprintln(os.Stderr, "build sepad:", err)
		os.Exit(1)
	}
	sepadBin = bins[0]
	if err := isolateHome(dir); err != nil {
		fmt.Fprintln(os.Stderr, "isolate HOME:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// isolateHome gives every command and daemon the tests start a home of
// its own below dir, so that none reads or claims the developer's
// ~/.claude or state directory (a test once left ~/.claude/.sepad-home
// behind). The caches the tests read stay where they were: Go's, the
// installed Claude Code CLIs (SEPAD_CLAUDE_CACHE) and the big store of
// the query benchmarks (SEPAD_BENCH_CACHE).
func isolateHome(dir string) error {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return fmt.Errorf("go env: %w", err)
	}
	goenv := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(goenv) != 3 {
		return fmt.Errorf("go env: %q", out)
	}
	keep := map[string]string{"GOCACHE": goenv[0], "GOMODCACHE": goenv[1], "GOPATH": goenv[2]}
	if cache, err := os.UserCacheDir(); err == nil {
		keep["SEPAD_CLAUDE_CACHE"] = filepath.Join(cache, "sepad", "claude-code")
		keep["SEPAD_BENCH_CACHE"] = filepath.Join(cache, "sepad-bench")
	}
	for k, v := range keep {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o700); err != nil {
		return err
	}
	// CLAUDE_CONFIG_DIR is unset rather than pointed here: tests that
	// give a command a HOME of their own expect its .claude to be used.
	os.Setenv("HOME", home)
	for _, k := range []string{"CLAUDE_CONFIG_DIR", "SEPA_HOME", "SEPA_CONFIG", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		os.Unsetenv(k)
	}
	return nil
}

// sepad runs one sepad command to completion.
func sepad(t testing.TB, env []string, stdin []byte, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	testbin.Consult() // the result depends on the binary's sources
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sepadBin, args...)
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sepad %v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// daemon is a running `sepad run`.
type daemon struct {
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	done   chan error
}

func startDaemon(t testing.TB, home string, extra ...string) *daemon {
	t.Helper()
	args := append([]string{"run", "--home", home, "--log-level", "warn"}, extra...)
	cmd := exec.Command(sepadBin, args...)
	cmd.Env = append(os.Environ(), "SEPA_CONFIG=", "XDG_CONFIG_HOME="+filepath.Join(home, "noconfig"))
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, stderr: &e, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	t.Cleanup(func() { d.kill() })
	return d
}

// waitUp waits until the daemon answers GET /healthz on its socket, or
// has exited, or a minute has passed.
func (d *daemon) waitUp() {
	home := ""
	for i, a := range d.cmd.Args {
		if a == "--home" && i+1 < len(d.cmd.Args) {
			home = d.cmd.Args[i+1]
		}
	}
	if home == "" {
		return
	}
	c := socketClient(home)
	c.Timeout = 5 * time.Second
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		if _, code, err := tryGet(c, "http://sepad/healthz"); err == nil && code == 200 {
			return
		}
		select {
		case err := <-d.done:
			d.done <- err // exited: stop reads it
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (d *daemon) kill() {
	if d.cmd.ProcessState == nil {
		d.cmd.Process.Signal(syscall.SIGKILL)
		select {
		case <-d.done:
		case <-time.After(10 * time.Second):
		}
	}
}

// stopDeadline bounds a clean stop. A stop commits the batch being read
// and one more (collector.Close), scoring each execution: on two cores at
// load 15-20 that took 2-17 s, and over 30 s in a full e2e run, before
// and after rubric 4.0.0 alike (TestCrashKill9's 1,000-line batches). It
// catches a daemon that ignores SIGTERM, not a slow machine.
const stopDeadline = 3 * time.Minute

// stop sends SIGTERM and waits for a clean exit. A daemon signalled
// before it set up its signal handling dies of the signal, so stop first
// waits (at most a minute) until the daemon answers on its socket or has
// exited: a test that stops a daemon it has just started stops a daemon.
func (d *daemon) stop(t testing.TB) {
	t.Helper()
	d.waitUp()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		if err != nil {
			t.Fatalf("daemon exit: %v\n%s", err, d.stderr)
		}
	case <-time.After(stopDeadline):
		t.Fatalf("daemon did not stop on SIGTERM in %v\n%s", stopDeadline, d.stderr)
	}
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func contains(t *testing.T, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Fatalf("output lacks %q:\n%s", sub, s)
	}
}

// skipLong skips a test that takes seconds (a daemon through many events,
// crashes, rotations, the demo) under -short: `go test -short ./...`
// stays under 30 s on 2 cores (README); the full suite runs them.
func skipLong(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("long: runs without -short")
	}
}
