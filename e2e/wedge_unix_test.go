//go:build !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// withTranscript sets transcript_path on every line of a turn.
func withTranscript(t *testing.T, lines [][]byte, path string) [][]byte {
	t.Helper()
	out := make([][]byte, len(lines))
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		m["transcript_path"] = path
		out[i], _ = json.Marshal(m)
	}
	return out
}

// TestIngestionNotWedged runs the daemon over a turn whose transcript is
// a FIFO, and over a turn dated 2099 whose transcript is not written yet,
// each followed by an ordinary turn (issue 33 item 7). Before: the FIFO
// blocked the collector in open(2) (no commit, SIGTERM unanswered), and
// the 2099 turn held it waiting for its transcript until 2099 plus 2 s
// (no commit in 90 s, again after a restart). Now every turn is stored,
// the first with the reason its tokens are missing, and the daemon stops
// on SIGTERM and restarts over the same spool.
func TestIngestionNotWedged(t *testing.T) {
	skipLong(t)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, proj string) (path string, at time.Time)
	}{
		{"fifo", func(t *testing.T, proj string) (string, time.Time) {
			p := filepath.Join(proj, "fifo.jsonl")
			if err := syscall.Mkfifo(p, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			return p, time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
		}},
		{"2099", func(t *testing.T, proj string) (string, time.Time) {
			return filepath.Join(proj, "not-yet.jsonl"), time.Date(2099, 1, 1, 9, 0, 0, 0, time.UTC)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := shortTempDir(t)
			claude := filepath.Join(home, "claude")
			proj := filepath.Join(claude, "projects", "-nonexistent-proj")
			if err := os.MkdirAll(proj, 0o700); err != nil {
				t.Fatal(err)
			}
			t.Setenv("CLAUDE_CONFIG_DIR", claude)
			cfg := filepath.Join(home, "config.yaml")
			writeFile(t, cfg, "collector:\n  idle_timeout: 1s\n")
			path, at := tc.setup(t, proj)
			lines := withTranscript(t, turnLines("wedge", "first", 2, at), path)
			lines = append(lines, turnLines("after", "second", 2, time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC))...)
			writeSpool(t, home, lines)
			d := startDaemon(t, home, "--config", cfg)
			waitExecutions(t, home, 2)
			d.stop(t) // fails when SIGTERM is not answered within 30 s
			d = startDaemon(t, home, "--config", cfg)
			if got := waitExecutions(t, home, 2); len(got) != 2 {
				t.Errorf("after a restart: %d executions", len(got))
			}
			d.stop(t)
		})
	}
}
