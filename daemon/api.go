package daemon

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/status"
)

// openAPI starts the daemon's API: the unix socket $SEPA_HOME/sepad.sock
// and, with --http, a loopback TCP address; and hooks the metrics to every
// collector commit.
func openAPI(ctx context.Context, d *Daemon, f Options) (io.Closer, error) {
	if f.HTTP != "" {
		if err := api.CheckLoopback(f.HTTP); err != nil {
			return nil, err
		}
	}
	m := api.NewMetrics(api.MetricsOptions{DB: d.db, Home: d.home})
	d.onCommit = append(d.onCommit, m.OnCommit)
	registerIngestMetrics(m.Registry(), d.col.Health)
	registerBuildInfo(m.Registry())
	registerTeamMetrics(m.Registry(), d.team)
	srv := api.New(api.Options{
		DB:       d.db,
		Home:     d.home,
		HTTPAddr: f.HTTP,
		Daemon: status.Daemon{Running: true, PID: os.Getpid(), Started: time.Now().UTC().Truncate(time.Second),
			IngestFunc: d.col.Health, Build: ptrTo(status.ReadBuild()),
			ReloadFunc: d.lastReload.Load},
		Metrics: m,
		Engine:  d.mut, // the write endpoints: no second writer
		Import:  d.col.Import,
		Evolver: d.evo,
		Hook:    &hooks.Options{Home: d.home, MaxField: d.cfg.Load().Hook.MaxField},
		Cache:   true,
		Logger:  d.logger,
		Team:    teamReader(d),
	})
	if err := srv.Open(ctx); err != nil {
		return nil, err // api.ErrNotLoopback: sepad run says it is a usage error
	}
	d.logger.Info("api listening", "socket", api.SocketPath(d.home), "http", srv.Addr())
	return srv, nil
}

func ptrTo[T any](v T) *T { return &v }
