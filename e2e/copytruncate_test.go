package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// logrotatePath returns the real logrotate, or skips.
func logrotatePath(t *testing.T) string {
	t.Helper()
	if lr, err := exec.LookPath("logrotate"); err == nil {
		return lr
	}
	for _, p := range []string{"/usr/sbin/logrotate", "/sbin/logrotate"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Skip("skipped: logrotate is not installed (apt-get install -y logrotate; .ci/run installs it)")
	return ""
}

// TestCopytruncateThenStop: the real logrotate copytruncates a spool of
// 3,000 lines while the daemon reads it, and the daemon is stopped at
// once (SIGTERM, its shutdown pass; or SIGKILL), then started again; 10
// runs each, the rotation placed at a different point of the daemon's
// reading in each. No line is written during the rotation, so
// logrotate's copy-to-truncate race cannot lose any: the store must hold
// every line exactly once (issue 33 item 3: 34-43 % doubled in 4 of 8
// runs, the shutdown pass reading events.jsonl.1 from offset 0).
func TestCopytruncateThenStop(t *testing.T) {
	skipLong(t)
	lr := logrotatePath(t)
	const n = 3000
	for _, sig := range []string{"SIGTERM", "SIGKILL"} {
		t.Run(sig, func(t *testing.T) {
			var bad []string
			for run := 0; run < 10; run++ {
				home := shortTempDir(t)
				spool := filepath.Join(home, "events.jsonl")
				conf := filepath.Join(home, "logrotate.conf")
				writeFile(t, conf, fmt.Sprintf("%s {\n  rotate 3\n  missingok\n  notifempty\n  copytruncate\n}\n", spool))
				prefix := fmt.Sprintf("T%d", run)
				// At info, so that a run that fails says what the daemons did.
				// Every line's name counted apart (allNames).
				start := func() *daemon { return startDaemon(t, home, append(allNames(t, home), "--log-level", "info")...) }
				d := start()
				waitFor(t, "the daemon's socket", func() bool {
					_, err := os.Stat(filepath.Join(home, "sepad.sock"))
					return err == nil
				})
				var b bytes.Buffer
				for i := 0; i < n; i++ {
					b.Write(uniqueLine(prefix, i))
				}
				if err := appendLocked(home, b.Bytes()); err != nil {
					t.Fatal(err)
				}
				// From at once to after the daemon read everything.
				time.Sleep(time.Duration(run) * 3 * time.Millisecond)
				if out, err := exec.Command(lr, "-f", "-s", filepath.Join(home, "logrotate.state"), conf).CombinedOutput(); err != nil {
					t.Fatalf("logrotate: %v: %s", err, out)
				}
				if sig == "SIGTERM" {
					d.stop(t)
				} else {
					d.kill()
				}
				first := d.stderr.String()
				d = start()
				settle(t, home, prefix, n)
				lost, doubled := lostDoubled(t, home, prefix, n)
				t.Logf("run %d (rotation after %d ms): %d lines, %d lost, %d doubled", run, run*3, n, lost, doubled)
				if lost != 0 || doubled != 0 {
					t.Logf("daemon (%s):\n%s\ndaemon (restarted):\n%s", sig, first, d.stderr)
					bad = append(bad, fmt.Sprintf("run %d: %d lost, %d doubled", run, lost, doubled))
				}
				d.stop(t)
			}
			if len(bad) != 0 {
				t.Errorf("%s after copytruncate: %v", sig, bad)
			}
		})
	}
}
