package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// MemoryLimit is the daemon's soft memory limit (runtime/debug): about
// what four of the largest hook bodies need while they are walked one at
// a time (BENCHMARKS.md, the 60 MB hook bodies row).
const MemoryLimit = 512 << 20

// LimitMemory sets MemoryLimit as the Go heap's soft limit, unless
// GOMEMLIMIT sets one: the collector then works harder when large hook
// bodies (up to four of 64 MiB) are in memory, instead of letting the
// heap reach twice what is live. The database's mmap'd pages are not
// counted in it.
func LimitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}

// SignalContext is cancelled by the first SIGINT or SIGTERM; a second one
// exits at once.
func SignalContext(logger *slog.Logger) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			logger.Info("signal received; committing and stopping (again to force)", "signal", s.String())
			cancel()
		case <-ctx.Done():
			return
		}
		s := <-ch
		logger.Error("second signal; exiting without a clean shutdown", "signal", s.String())
		os.Exit(130)
	}()
	return ctx, func() { signal.Stop(ch); cancel() }
}

// Serve runs the daemon until ctx ends, then closes it, or until its
// collector stops, an error; each SIGHUP reloads the configuration
// (Reload).
func (d *Daemon) Serve(ctx context.Context) error {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			d.logger.Info("shutting down")
			return d.Close()
		case <-d.Done():
			err := d.Err()
			d.Close()
			return fmt.Errorf("collector stopped: %w", err)
		case <-hup:
			d.Reload()
		}
	}
}
