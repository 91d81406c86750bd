package daemon

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/sepad/sepad/afterstop"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/promptfile"
)

// newAfterStop is the daemon's runner of outcome.after_stop: the command
// and its bounds read from the configuration in force at each Stop, only
// in the projects `sepad install` recorded.
func newAfterStop(d *Daemon, logger *slog.Logger) *afterstop.Runner {
	return afterstop.New(afterstop.Options{
		Plan: func(project string) (afterstop.Plan, bool) {
			cfg := d.cfg.Load()
			dir, cmd := cfg.AfterStopFor(project)
			if len(cmd) == 0 {
				return afterstop.Plan{}, false
			}
			a := cfg.Outcome.AfterStop
			return afterstop.Plan{Dir: dir, Command: cmd, Timeout: a.Timeout, MaxOutput: a.MaxOutput}, true
		},
		Installed: func() []string { return promptfile.InstalledRoots(d.home) },
		Logger:    logger,
	})
}

// afterStopped starts the check of the execution a Stop ended, when one
// is configured for its project (the collector's OnStop).
func (d *Daemon) afterStopped(x *execution.Execution, at time.Time) {
	err := d.after.Stopped(x, at)
	switch {
	case err == nil:
		d.logger.Debug("after_stop check started", "execution", x.ID, "project", x.Project)
	case errors.Is(err, afterstop.ErrNotInstalled):
		d.logger.Warn("outcome.after_stop names a project sepad install did not record: not run", "execution", x.ID, "project", x.Project)
	}
}

// afterStopCheck is the check of an execution the collector closed,
// waited for while it runs (at most its bound; Close kills it): nil when
// none ran.
func (d *Daemon) afterStopCheck(x *execution.Execution) *execution.Check {
	return d.after.Take(context.Background(), x.ID)
}
