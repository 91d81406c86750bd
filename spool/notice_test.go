package spool

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestNoticesReadersNeverSeeAPart: readers take no lock, so every read
// while notices are appended must hold whole lines, as many as were
// appended before it or after (never fewer than the read before it).
func TestNoticesReadersNeverSeeAPart(t *testing.T) {
	t.Parallel() // seconds of appends and reads, beside the process tests
	home := t.TempDir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			if err := AppendNotice(home, "/p", strings.Repeat("x", 300), time.Unix(int64(i), 0), time.Second); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	last := 0
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		ns, err := PendingNotices(home)
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) < last && len(ns) < maxNotices-1 {
			t.Fatalf("read %d notices after %d", len(ns), last)
		}
		for _, n := range ns {
			if len(n.Text) != 300 {
				t.Fatalf("a notice cut to %d bytes", len(n.Text))
			}
		}
		last = len(ns)
	}
}

// TestNoticesOldFormat: a notice written before the file held JSON lines
// (time, project and text separated by tabs) is still read and shown.
func TestNoticesOldFormat(t *testing.T) {
	home := t.TempDir()
	old := "1777636800000000000\t/p\tsepad rolled back \\\"deploy\\\"\\tv3\n"
	if err := os.WriteFile(NoticesPath(home), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AppendNotice(home, "/q", "new", time.Unix(1, 0), time.Second); err != nil {
		t.Fatal(err)
	}
	ns, err := PendingNotices(home)
	if err != nil || len(ns) != 2 || ns[0].Project != "/p" || ns[0].Text != "sepad rolled back \"deploy\"\tv3" || ns[0].Time.Unix() != 1777636800 || ns[1].Text != "new" {
		t.Fatalf("notices %+v %v", ns, err)
	}
	if got := TakeNotices(home, "/p", time.Second); len(got) != 1 || got[0] != "sepad rolled back \"deploy\"\tv3" {
		t.Fatalf("taken %q", got)
	}
	if ns, _ := PendingNotices(home); len(ns) != 1 || ns[0].Text != "new" {
		t.Fatalf("left %+v", ns)
	}
}
