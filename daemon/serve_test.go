package daemon

import (
	"context"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"
)

// TestServeUntilCancelled: a daemon served until its context ends closes
// cleanly, and the database can be opened again after it.
func TestServeUntilCancelled(t *testing.T) {
	home := filepath.Join(t.TempDir(), "sepa")
	user := t.TempDir()
	t.Setenv("HOME", user)
	t.Setenv("CLAUDE_CONFIG_DIR", filepath.Join(user, ".claude"))
	o := Options{Home: home, NoConfig: true, UserHome: user}
	d, err := Open(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Serve(ctx) }()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Serve did not return a minute after its context ended")
	}
	d, err = Open(context.Background(), o)
	if err != nil {
		t.Fatalf("open again after Serve closed: %v", err)
	}
	d.Close()
}

func TestLimitMemory(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	t.Setenv("GOMEMLIMIT", "")
	LimitMemory()
	if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
		t.Errorf("limit %d, want %d", got, MemoryLimit)
	}
	debug.SetMemoryLimit(prev)
	os.Setenv("GOMEMLIMIT", "1GiB") // restored by t.Setenv's cleanup
	LimitMemory()
	if got := debug.SetMemoryLimit(-1); got != prev {
		t.Errorf("GOMEMLIMIT set: limit %d, want %d kept", got, prev)
	}
}
