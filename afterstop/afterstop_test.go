package afterstop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

// edited is an execution of project dir that changed a file.
func edited(id, dir string) *execution.Execution {
	return &execution.Execution{ID: id, Project: dir, Calls: []execution.ToolCall{{Name: "Edit", Done: true}}}
}

func newRunner(t *testing.T, dir string, cmd []string, timeout time.Duration, maxOut int) *Runner {
	t.Helper()
	r := New(Options{
		Plan: func(project string) (Plan, bool) {
			if project != dir {
				return Plan{}, false
			}
			return Plan{Dir: dir, Command: cmd, Timeout: timeout, MaxOutput: maxOut}, true
		},
		Installed: func() []string { return []string{dir} },
	})
	if err := r.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func needShell(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the commands are POSIX shell")
	}
}

func TestCheckRuns(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	r := newRunner(t, dir, []string{"sh", "-c", "pwd; echo fail >&2; exit 3"}, time.Minute, 4096)
	if err := r.Stopped(edited("x1", dir), time.Now()); err != nil {
		t.Fatal(err)
	}
	chk := r.Take(context.Background(), "x1")
	if chk == nil || chk.ExitCode != 3 || chk.TimedOut || chk.Error != "" || chk.Dir != dir {
		t.Fatalf("check %+v", chk)
	}
	if real, _ := filepath.EvalSymlinks(dir); !strings.Contains(chk.Output, real) || !strings.Contains(chk.Output, "fail") {
		t.Errorf("output %q: want the project as the working directory and stderr", chk.Output)
	}
	if again := r.Take(context.Background(), "x1"); again != nil {
		t.Errorf("taken twice: %+v", again)
	}
	if chk := r.Take(context.Background(), "never"); chk != nil {
		t.Errorf("a check of an execution that started none: %+v", chk)
	}
}

// A hung command is killed at its bound, with its children.
func TestHungCheckKilledAtBound(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	r := newRunner(t, dir, []string{"sh", "-c", "sleep 600 & echo $! > child.pid; wait"}, 500*time.Millisecond, 4096)
	if err := r.Stopped(edited("x1", dir), time.Time{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	chk := r.Take(ctx, "x1")
	if chk == nil || !chk.TimedOut || chk.ExitCode != -1 || chk.Observed() {
		t.Fatalf("check %+v, want timed out", chk)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the command's child %d outlived the bound", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie waiting for a reaper does
// not).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if runtime.GOOS != "linux" {
			p, err := os.FindProcess(pid)
			return err == nil && p.Signal(syscall.Signal(0)) == nil
		}
		return false
	}
	s := string(b)
	i := strings.LastIndex(s, ") ")
	return i < 0 || !strings.HasPrefix(s[i+2:], "Z")
}

// A huge output is kept bounded: its beginning and its end.
func TestHugeOutputTruncated(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	r := newRunner(t, dir, []string{"sh", "-c", "echo BEGIN; yes 0123456789 | head -c 20000000; echo; echo END"}, time.Minute, 8192)
	if err := r.Stopped(edited("x1", dir), time.Now()); err != nil {
		t.Fatal(err)
	}
	chk := r.Take(context.Background(), "x1")
	if chk == nil || chk.ExitCode != 0 || !chk.Truncated {
		t.Fatalf("check %+v", chk)
	}
	if n := len(chk.Output); n > execution.MaxCheckOutput || !strings.HasPrefix(chk.Output, "BEGIN\n") || !strings.HasSuffix(chk.Output, "\nEND\n") || !strings.Contains(chk.Output, "\n…\n") {
		t.Errorf("output of %d bytes: %q … %q", n, chk.Output[:20], chk.Output[max(0, n-20):])
	}
}

// What starts no check, and why.
func TestNoCheck(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	cmd := []string{"sh", "-c", "touch " + marker}
	r := newRunner(t, dir, cmd, time.Minute, 4096)
	for _, tc := range []struct {
		name string
		x    *execution.Execution
		at   time.Time
		want error
	}{
		{"no edit", &execution.Execution{ID: "a", Project: dir, Calls: []execution.ToolCall{{Name: "Bash", Done: true}}}, time.Now(), ErrNoEdits},
		{"a failed edit", &execution.Execution{ID: "b", Project: dir, Calls: []execution.ToolCall{{Name: "Write", Done: true, Failed: true}}}, time.Now(), ErrNoEdits},
		{"another project", edited("c", t.TempDir()), time.Now(), ErrNotPlanned},
		{"no project", edited("d", ""), time.Now(), ErrNotPlanned},
		{"a Stop read again from a backlog", edited("e", dir), time.Now().Add(-time.Hour), ErrStale},
	} {
		if err := r.Stopped(tc.x, tc.at); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// Configured, but not a project sepad install recorded.
	other := New(Options{
		Plan: func(string) (Plan, bool) {
			return Plan{Dir: dir, Command: cmd, Timeout: time.Minute, MaxOutput: 4096}, true
		},
		Installed: func() []string { return []string{filepath.Join(dir, "sub"), "/elsewhere"} },
	})
	if err := other.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Stopped(edited("f", dir), time.Now()); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("not installed: %v", err)
	}
	r.Close()
	other.Close()
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a command ran: %v", err)
	}
}

// A later Stop in the same project supersedes the check still running:
// the project has moved on, the earlier result would not describe it.
func TestSuperseded(t *testing.T) {
	needShell(t)
	dir := t.TempDir()
	r := newRunner(t, dir, []string{"sh", "-c", "if [ -e first ]; then exit 0; fi; touch first; exec sleep 600"}, 10*time.Minute, 4096)
	if err := r.Stopped(edited("x1", dir), time.Now()); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(dir, "first")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first check never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := r.Stopped(edited("x2", dir), time.Now()); err != nil {
		t.Fatal(err)
	}
	if chk := r.Take(context.Background(), "x1"); chk != nil {
		t.Errorf("superseded check returned: %+v", chk)
	}
	if chk := r.Take(context.Background(), "x2"); chk == nil || chk.ExitCode != 0 {
		t.Errorf("the later check: %+v", chk)
	}
}

func TestBounded(t *testing.T) {
	b := newBounded(16)
	b.Write([]byte("abcdefghij"))
	if s, tr := b.String(); s != "abcdefghij" || tr {
		t.Fatalf("%q %v", s, tr)
	}
	for i := 0; i < 100; i++ {
		b.Write([]byte("0123456789"))
	}
	s, tr := b.String()
	if !tr || s != "abcd\n…\n"+"890123456789" {
		t.Errorf("%q %v", s, tr)
	}
}
