package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSecondDaemonRefusedAtOnce: `sepad run` on a state directory a
// daemon serves says so at once, naming its pid, and exits 1. "At once"
// is checked by what answered, not by a clock: the words "already running
// (pid N, since T)" come only from the first daemon's socket, asked before
// the database; the database's lock would have been waited for (3 s) and
// refused with store.ErrLocked's words instead.
func TestSecondDaemonRefusedAtOnce(t *testing.T) {
	home := shortTempDir(t)
	writeSpool(t, home, nil)
	d := startDaemon(t, home)
	waitFor(t, "the daemon's socket", func() bool { return status(t, home).Daemon.Running })
	start := time.Now()
	out, errOut, code := sepad(t, queryEnv(home), nil, "run", "--home", home)
	took := time.Since(start)
	want := fmt.Sprintf("sepad run: sepad is already running (pid %d, since ", d.cmd.Process.Pid)
	if code != 1 || out != "" || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "database is locked") {
		t.Errorf("second daemon: exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}
	t.Logf("refused in %v", took)
	if !status(t, home).Daemon.Running {
		t.Error("the first daemon stopped")
	}
	d.stop(t)
}
