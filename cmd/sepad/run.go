package main

import (
	"context"
	"errors"
	"io"
	"log/slog"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/daemon"
)

func init() {
	register("run", "run the daemon: follow the spool, score, grade, decide", runDaemon)
}

func runDaemon(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", stderr)
	var o daemon.Options
	var logFormat, logLevel string
	fs.StringVar(&o.Home, "home", "", "state directory `DIR` (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	fs.StringVar(&o.Config, "config", "", "configuration `FILE`")
	fs.StringVar(&logFormat, "log-format", "text", "log `FORMAT`: text or json")
	fs.StringVar(&logLevel, "log-level", "info", "log `LEVEL`: debug, info, warn, error")
	fs.StringVar(&o.HTTP, "http", "", "also serve the API on this loopback TCP `ADDRESS` (e.g. 127.0.0.1:7077)")
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
	ctx, stop := daemon.SignalContext(logger)
	defer stop()
	daemon.LimitMemory()
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
	return d.Serve(ctx)
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
