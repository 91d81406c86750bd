//go:build linux

package collector

import (
	"os"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/tmpfs"
)

// TestStoreFull: the file system holding the database fills up under the
// collector. It holds what it read, reads nothing more, retries with
// backoff on the stepped clock (no attempt before the wait is over), and
// once space is freed it commits everything: nothing read is lost.
func TestStoreFull(t *testing.T) {
	t.Parallel() // its own state directory and clock; fsyncs overlap with the other tests
	home := tmpfs.Mount(t, "4m")
	r := newRigAt(t, home, func(o *Options) {
		o.BatchLines = 1 << 20
		o.RetryMin, o.RetryMax = time.Second, 4*time.Second
	})
	lines := gen(21, 60)
	r.append(r.spool(), lines)
	filler := tmpfs.Fill(t, home)
	r.step() // finds the spool
	r.step() // reads it
	r.step() // the commit is due; it needs new pages: refused
	h := r.c.Health()
	if !h.Stalled || h.Attempts != 1 || h.PendingLines == 0 || h.LastError == "" {
		t.Fatalf("after a refused commit: %+v", h)
	}
	if h.NextRetry.Sub(r.clk.Now()) != time.Second {
		t.Fatalf("first retry in %v, want RetryMin", h.NextRetry.Sub(r.clk.Now()))
	}
	// Before the wait is over: no attempt.
	if err := r.c.step(false); err != nil {
		t.Fatal(err)
	}
	if got := r.c.Health().Attempts; got != 1 {
		t.Fatalf("%d attempts before the backoff was over", got)
	}
	// Backoff doubles up to RetryMax while the disk stays full.
	var waits []time.Duration
	for i := 0; i < 4; i++ {
		r.clk.t = r.c.Health().NextRetry
		if err := r.c.step(false); err != nil {
			t.Fatal(err)
		}
		waits = append(waits, r.c.Health().NextRetry.Sub(r.clk.Now()))
	}
	if want := []time.Duration{2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}; !equalDurations(waits, want) {
		t.Fatalf("backoff %v, want %v", waits, want)
	}
	if h := r.c.Health(); !h.Stalled || h.Attempts != 5 || h.Stalls != 1 {
		t.Fatalf("still full: %+v", h)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	r.clk.t = r.c.Health().NextRetry
	r.drain()
	if h := r.c.Health(); h.Stalled || h.FailedCommits != 5 || h.PendingLines != 0 {
		t.Fatalf("after space came back: %+v", h)
	}
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
	r.restart()
	r.drain()
	equalIDs(t, r.storedIDs(), expectedIDs(lines))
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
