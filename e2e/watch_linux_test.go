package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestOneFileWatcher: the daemon follows the spool and the prompt files
// with one inotify instance (package fswatch): each fsnotify watcher keeps
// a 64 KiB buffer on its reader goroutine's stack, which doubled the
// stack of every goroutine the daemon starts (docs/store.md,
// "Opening"), and a user has only 128 instances.
func TestOneFileWatcher(t *testing.T) {
	p := newProject(t)
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	waitFor(t, "the daemon's socket", func() bool {
		_, err := os.Stat(filepath.Join(p.home, "sepad.sock"))
		return err == nil
	})
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(d.cmd.Process.Pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(d.cmd.Process.Pid), "fd", fd.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("the daemon holds %d inotify instances, want 1", n)
	}
	// Both parts still see their files: a turn of the skill is committed
	// and an edit of it becomes a second version.
	p.turns(1, 0, goodAnswer)
	p.release()
	p.edit("Run the checks twice, then make deploy.")
	waitFor(t, "the turn committed and the edit as a second version", func() bool {
		out, _, code := sepad(t, p.env(), nil, "grades", "deploy", "--all-versions", "--home", p.home, "--json")
		var g struct{ Grades []struct{ N int } }
		if code != 0 || json.Unmarshal([]byte(out), &g) != nil || len(g.Grades) < 2 {
			return false
		}
		n := 0
		for _, r := range g.Grades {
			n += r.N
		}
		return n >= 1 // the turn's execution, on the first version
	})
	d.stop(t)
}
