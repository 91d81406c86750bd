package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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

// TestCopytruncateRestarts: hooks append about 2,000 lines a second while
// the real logrotate copytruncates the spool and the daemon is stopped
// (SIGTERM) or killed (SIGKILL) during the rotation, then started again;
// 10 runs each, two rotations a run, the signal at a different point of
// the rotation in each, and every other run started again at once, while
// logrotate may still be copying. No line may be doubled, and none lost outside
// logrotate's own race (the lines written between its copy and its
// truncation, found from the files, line by line). Issue 33 item 3: +15.1
// % (SIGTERM), -5.7 % (SIGKILL).
func TestCopytruncateRestarts(t *testing.T) {
	skipLong(t)
	lr := logrotatePath(t)
	// SEPAD_CT_BURST lines every 5 ms; the signal SEPAD_CT_GAP ms later
	// in each run (run 0 at once).
	burst, gap := 10, 2
	if v, err := strconv.Atoi(os.Getenv("SEPAD_CT_BURST")); err == nil {
		burst = v
	}
	if v, err := strconv.Atoi(os.Getenv("SEPAD_CT_GAP")); err == nil {
		gap = v
	}
	for _, sig := range []string{"SIGTERM", "SIGKILL"} {
		t.Run(sig, func(t *testing.T) {
			var bad []string
			total, totalRace := 0, 0
			for run := 0; run < 10; run++ {
				home := shortTempDir(t)
				spool := filepath.Join(home, "events.jsonl")
				conf := filepath.Join(home, "logrotate.conf")
				writeFile(t, conf, fmt.Sprintf("%s {\n  rotate 3\n  missingok\n  notifempty\n  copytruncate\n}\n", spool))
				state := filepath.Join(home, "logrotate.state")
				prefix := "L" // lineIndex reads L lines; each run has its own home
				start := func() *daemon {
					d := startDaemon(t, home, append(allNames(t, home), "--log-level", "info")...)
					// Up (its signal handler too) before the next signal.
					waitFor(t, "the daemon", func() bool { return status(t, home).Daemon.Running })
					return d
				}
				d := start()
				var logs []string
				var mu sync.Mutex
				n, stop := 0, make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					tick := time.NewTicker(5 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tick.C:
						}
						mu.Lock()
						var b bytes.Buffer
						for j := 0; j < burst; j++ {
							b.Write(uniqueLine(prefix, n+j))
						}
						if err := appendLocked(home, b.Bytes()); err != nil {
							t.Error(err)
						}
						n += burst
						mu.Unlock()
					}
				}()
				var races [][2]int
				from := 0
				for rot := 0; rot < 2; rot++ {
					time.Sleep(300 * time.Millisecond)
					cmd := exec.Command(lr, "-f", "-s", state, conf)
					var out bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &out
					if err := cmd.Start(); err != nil {
						t.Fatal(err)
					}
					// The signal lands before, during or after the copy.
					time.Sleep(time.Duration(run) * time.Duration(gap) * time.Millisecond)
					if sig == "SIGTERM" {
						d.stop(t)
					} else {
						d.kill()
					}
					logs = append(logs, d.stderr.String())
					early := run%2 == 1 // started again while logrotate may still be at work
					if early {
						d = start()
					}
					if err := cmd.Wait(); err != nil {
						t.Fatalf("logrotate: %v: %s", err, out.String())
					}
					mu.Lock() // no line is being written
					next := n
					if i, ok := lineIndex(t, spool, true); ok {
						next = i
					}
					mu.Unlock()
					last := from - 1
					if i, ok := lineIndex(t, spool+".1", false); ok {
						last = i
					}
					races = append(races, [2]int{last + 1, next})
					from = next
					if !early {
						d = start()
					}
				}
				time.Sleep(300 * time.Millisecond)
				close(stop)
				wg.Wait()
				settle(t, home, prefix, n)
				lost, doubled := lostDoubled(t, home, prefix, n)
				outside := lostOutside(t, home, prefix, n, races)
				inRace := 0
				for _, r := range races {
					inRace += r[1] - r[0]
				}
				total, totalRace = total+n, totalRace+inRace
				t.Logf("run %d: %d lines, %d lost (%d outside the copy-to-truncate race of %d lines), %d doubled", run, n, lost, len(outside), inRace, doubled)
				if doubled != 0 || len(outside) != 0 {
					t.Logf("daemons:\n%s\ndaemon (last):\n%s", strings.Join(logs, "\n---\n"), d.stderr)
					bad = append(bad, fmt.Sprintf("run %d: %d doubled, %d lost outside the race %v: %v", run, doubled, len(outside), races, outside))
				}
				d.stop(t)
			}
			t.Logf("%s: %d lines in 10 runs, %d written in logrotate's copy-to-truncate race", sig, total, totalRace)
			if len(bad) != 0 {
				t.Errorf("%s during copytruncate: %v", sig, bad)
			}
		})
	}
}
