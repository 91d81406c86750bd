//go:build !windows

package transcript

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO at a transcript path is refused without blocking (issue 33 item
// 7): open(2) of a FIFO for reading waits for a writer, and the collector
// that read it wedged before its regular-file check, SIGTERM unanswered.
func TestOpenFIFODoesNotBlock(t *testing.T) {
	dir, proj := claudeDir(t)
	p := filepath.Join(proj, "s.jsonl")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan string, 1)
	go func() {
		f, _, reason := Open(dir, p)
		if f != nil {
			f.Close()
		}
		done <- reason
	}()
	select {
	case reason := <-done:
		if reason != "transcript is not a regular file" {
			t.Errorf("reason %q", reason)
		}
	case <-time.After(30 * time.Second): // generous: the open either blocks for good or returns at once
		t.Fatal("Open blocked on a FIFO")
	}
}
