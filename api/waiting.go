package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/status"
)

// WaitingOptions configure the API of a daemon waiting for its database.
type WaitingOptions struct {
	// Home is $SEPA_HOME (the socket lives there); Database the path of
	// the database that could not be opened; Rubric the rubric version
	// the daemon scores with.
	Home, Database, Rubric string
	// Daemon describes the process (running, pid, start); its Ingest is
	// filled from IngestFunc at every request.
	Daemon status.Daemon
	// Registry holds the metrics served on /metrics (the ingest gauges,
	// build info).
	Registry *prometheus.Registry
	// Hook, when set, serves POST /v1/hook as the full API does: the hook
	// needs no database.
	Hook *hooks.Options
	// Logger receives the listener's errors. Default: discard.
	Logger *slog.Logger
}

// Waiting is the API of a daemon that cannot open its database yet, the
// file system holding it being full (store.ErrNoSpace), so that `sepad
// status`, `sepad doctor` and a scraper see why instead of finding no
// daemon (issue 33). On the socket only (loopback TCP, with its secret
// and login, starts with the full API), it answers GET /v1/status (the
// daemon runs, its ingestion is stalled, why and since when), GET
// /metrics, GET /healthz and POST /v1/hook; anything else 503 with
// Retry-After: there is no database to read yet.
type Waiting struct {
	srv *http.Server
	wg  sync.WaitGroup
}

// OpenWaiting listens on the socket and serves until Close.
func OpenWaiting(ctx context.Context, o WaitingOptions) (*Waiting, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	sock := SocketPath(o.Home)
	ln, err := listenSocket(sock)
	if err != nil {
		return nil, err
	}
	o.Daemon.Socket = sock
	mux := http.NewServeMux()
	mux.Handle("/healthz", only(http.MethodGet, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	})))
	mux.Handle("/v1/status", only(http.MethodGet, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := o.Daemon
		if d.IngestFunc != nil {
			in := d.IngestFunc()
			d.Ingest = &in
		}
		writeJSON(w, http.StatusOK, status.Status{Daemon: d, Home: o.Home, Database: o.Database, RubricVersion: o.Rubric, Events: map[string]int64{}})
	})))
	if o.Registry != nil {
		mux.Handle("/metrics", only(http.MethodGet, promhttp.HandlerFor(o.Registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})))
	}
	if o.Hook != nil {
		mux.Handle("/v1/hook", NewHandler(Options{Home: o.Home, Hook: o.Hook, Logger: o.Logger}))
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusServiceUnavailable, fmt.Errorf("the daemon is waiting for room to open its database %s (the file system is full): nothing to read yet; see sepad status", o.Database), nil)
	}))
	w := &Waiting{srv: &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
		WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: 64 << 10,
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) }}}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		if err := w.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			o.Logger.Error("api listener stopped", "socket", sock, "err", err)
		}
	}()
	return w, nil
}

// Close stops serving and removes the socket, so the full API can listen
// on it.
func (w *Waiting) Close() error {
	err := w.srv.Close()
	w.wg.Wait()
	return err
}
