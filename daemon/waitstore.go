package daemon

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
)

// The wait for room to open the database doubles from storeRetryMin up
// to storeRetryMax, as the collector's wait to commit does.
const (
	storeRetryMin = 250 * time.Millisecond
	storeRetryMax = 10 * time.Second
)

// openStoreWaiting opens the store. While the file system holding it is
// too full to create it (store.ErrNoSpace) the daemon does not exit, as
// it does not while running: it says so once in its log, serves the
// waiting API on its socket (status, doctor and /metrics say `ingest
// STALLED`, the http hook keeps writing the spool), and tries again with
// backoff until the store opens or ctx ends (issue 33). A database that
// exists opens on a full disk (store.Open writes nothing then); its
// commits wait in the collector.
func openStoreWaiting(ctx context.Context, d *Daemon, path string, o store.Options) (*store.DB, error) {
	db, err := store.Open(path, o)
	if !errors.Is(err, store.ErrNoSpace) {
		return db, err
	}
	d.logger.Error("cannot open the database: the file system holding it is full; waiting for room and retrying (the hook writes on meanwhile)",
		"db", path, "err", err)
	var mu sync.Mutex
	now := time.Now().UTC()
	in := collector.Health{Stalled: true, Since: now, LastError: err.Error(), Attempts: 1, Stalls: 1, FailedCommits: 1}
	ingest := func() collector.Health {
		mu.Lock()
		defer mu.Unlock()
		return in
	}
	reg := prometheus.NewRegistry()
	registerIngestMetrics(reg, ingest)
	registerBuildInfo(reg)
	w, werr := api.OpenWaiting(ctx, api.WaitingOptions{Home: d.home, Database: path, Rubric: o.Rubric, Registry: reg, Logger: d.logger,
		Daemon: status.Daemon{Running: true, PID: os.Getpid(), Started: now.Truncate(time.Second), IngestFunc: ingest,
			Build: ptrTo(status.ReadBuild())},
		Hook: &hooks.Options{Home: d.home, MaxField: d.cfg.Load().Hook.MaxField}})
	if werr != nil {
		d.logger.Warn("cannot serve the socket while waiting for the database", "err", werr)
	} else {
		defer w.Close()
	}
	wait := storeRetryMin
	for {
		mu.Lock()
		in.NextRetry = time.Now().UTC().Add(wait)
		mu.Unlock()
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		db, err = store.Open(path, o)
		if err == nil {
			d.logger.Info("the database opened; starting", "db", path, "waited", time.Since(now).Round(time.Millisecond))
			return db, nil
		}
		if !errors.Is(err, store.ErrNoSpace) {
			return nil, err
		}
		mu.Lock()
		in.Attempts++
		in.FailedCommits++
		in.LastError = err.Error()
		mu.Unlock()
		wait = min(2*wait, storeRetryMax)
	}
}
