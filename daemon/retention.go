package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/sepad/sepad/store"
)

// retentionEvery is how often the daemon applies collector.retention
// (also once at start).
const retentionEvery = 24 * time.Hour

// retention applies collector.retention in the daemon: store.Prune of
// what is older, at start and every retentionEvery, with the
// configuration in force (SIGHUP applies to the next pass).
type retention struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func startRetention(ctx context.Context, d *Daemon) *retention {
	ctx, cancel := context.WithCancel(ctx)
	r := &retention{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(retentionEvery)
		defer t.Stop()
		for {
			retentionPass(d.db, d.cfg.Load().Collector.Retention, time.Now(), d.logger)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return r
}

// stop ends the loop and waits for a pass in progress.
func (r *retention) stop() {
	if r != nil {
		r.cancel()
		<-r.done
	}
}

// retentionPass prunes what is older than keep (0: nothing).
func retentionPass(db *store.DB, keep time.Duration, now time.Time, logger *slog.Logger) {
	if keep <= 0 {
		return
	}
	p, err := db.Prune(now.Add(-keep))
	if err != nil {
		logger.Error("retention: prune failed", "err", err)
		return
	}
	if p.Executions > 0 || p.Quarantined > 0 {
		logger.Info("retention: pruned", "before", p.Before, "executions", p.Executions, "quarantined", p.Quarantined)
	}
}
