//go:build !windows

package collector

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A followed name that leads to a FIFO (swapped in after the type was
// checked by name) is refused at once, not waited on in open(2) (issue 33
// item 7).
func TestSourceOpenFIFODoesNotBlock(t *testing.T) {
	p := filepath.Join(t.TempDir(), "events.jsonl")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		s := &source{path: p, kind: kindSpool}
		_, err := s.open(nil)
		s.close()
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, errNotRegular) {
			t.Errorf("open of a FIFO: %v", err)
		}
	case <-time.After(30 * time.Second): // generous: the open either blocks for good or returns at once
		t.Fatal("open blocked on a FIFO")
	}
}
