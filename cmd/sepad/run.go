package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/daemon"
)

func init() {
	register("run", "run the daemon: follow the spool, score, grade, decide", runDaemon)
}

// daemonMemoryLimit is the daemon's soft memory limit (runtime/debug):
// about what four of the largest hook bodies need while they are walked
// one at a time (BENCHMARKS.md, the 60 MB hook bodies row).
const daemonMemoryLimit = 512 << 20

func runDaemon(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	var o daemon.Options
	var logFormat, logLevel string
	fs.StringVar(&o.Home, "home", "", "state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.StringVar(&o.Config, "config", "", "configuration file")
	fs.StringVar(&logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&o.HTTP, "http", "", "also serve the API on this loopback TCP address (e.g. 127.0.0.1:7077)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	logger, err := newLogger(stderr, logFormat, logLevel)
	if err != nil {
		return err
	}
	if o.HTTP != "" {
		if err := api.CheckLoopback(o.HTTP); err != nil {
			return usageErrorf("%v", err)
		}
	}
	o.Logger = logger
	ctx, stop := signalContext(logger)
	defer stop()
	// A soft memory limit for the daemon's Go heap, unless GOMEMLIMIT
	// sets one: the collector then works harder when large hook bodies
	// (up to four of 64 MiB) are in memory, instead of letting the heap
	// reach twice what is live. The database's mmap'd pages are not
	// counted in it.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(daemonMemoryLimit)
	}
	if err := client.AlreadyRunning(o.Home); err != nil {
		return err // at once, naming the running daemon (already.go)
	}
	d, err := daemon.Open(ctx, o)
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			logger.Info("stopped while waiting for room to open the database")
			return nil
		}
		if errors.Is(err, api.ErrNotLoopback) {
			return usageErrorf("%v", err)
		}
		return client.LockedByDaemon(o.Home, err)
	}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	for {
		select {
		case <-ctx.Done():
			logger.Info("shutting down")
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

// signalContext is cancelled by the first SIGINT or SIGTERM; a second one
// exits at once.
func signalContext(logger *slog.Logger) (context.Context, func()) {
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

func newLogger(w io.Writer, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usageErrorf("--log-level %q: want debug, info, warn or error", level)
	}
	o := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, usageErrorf("--log-format %q: want text or json", format)
}
