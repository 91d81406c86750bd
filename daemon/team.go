package daemon

import (
	"context"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/dashboard"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/team"
)

// TeamConfig maps team.* to the package's configuration.
func TeamConfig(cfg *config.Config) team.Config {
	t := cfg.Team
	return team.Config{Postgres: t.Postgres, PasswordFile: t.PasswordFile, Person: t.Person, ShareText: t.ShareText}
}

// openShipper starts the team shipper when team.postgres is set (nil
// otherwise): after the store, before the collector, so every commit
// wakes it.
func openShipper(ctx context.Context, d *Daemon, cfg *config.Config) (*team.Shipper, error) {
	if strings.TrimSpace(cfg.Team.Postgres) == "" {
		return nil, nil
	}
	uh, _ := os.UserHomeDir()
	// Every daemon is one of the team's deciders (one at a time per
	// prompt): the mutation settings in force, on this rubric's scores.
	decide := MutationOptions(cfg, uh, d.home, d.logger).Decide
	sh := team.NewShipper(d.db, team.ShipperOptions{Config: TeamConfig(cfg), Home: d.home,
		ClaudeDir: prompt.ConfigDirFrom(os.Getenv, uh), Logger: d.logger, Decide: &decide, Rubric: scoring.Rubric(cfg),
		Notify: NoticeWriter(d.home)})
	if err := sh.Open(ctx); err != nil {
		return nil, err
	}
	return sh, nil
}

// registerTeamMetrics exports the shipper's counters on /metrics.
func registerTeamMetrics(reg *prometheus.Registry, sh *team.Shipper) {
	if sh == nil {
		return
	}
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sepad_team_pending_executions",
			Help: "Executions stored and not yet shipped to the team database."},
			func() float64 { return float64(sh.Status().Pending) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sepad_team_shipped_executions_total",
			Help: "Executions shipped to the team database by this home (ever)."},
			func() float64 { return float64(sh.Status().Shipped) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "sepad_team_failures_total",
			Help: "Failed attempts to reach or write the team database, since the daemon started."},
			func() float64 { return float64(sh.Status().Failures) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sepad_team_connected",
			Help: "1 while the last attempt to ship succeeded."},
			func() float64 {
				if sh.Status().Connected {
					return 1
				}
				return 0
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "sepad_team_lag_seconds",
			Help: "How long the oldest execution not yet shipped has waited since it was stored."},
			func() float64 { return sh.Status().LagSeconds }),
	)
}

// teamView reads the dashboard's team page from the team database (nil
// without team.postgres): a connection per page, as the CLI's.
func teamView(d *Daemon) func(ctx context.Context) (*dashboard.TeamView, error) {
	if d.team == nil {
		return nil
	}
	return func(ctx context.Context) (*dashboard.TeamView, error) {
		cfg := d.cfg.Load()
		db, err := team.Open(ctx, TeamConfig(cfg))
		if err != nil {
			return nil, err
		}
		defer db.Close()
		g, err := db.Grades(ctx, team.GradesOptions{Rubric: scoring.Rubric(cfg), Aggregate: AggregateOptions(cfg)})
		if err != nil {
			return nil, err
		}
		ds, err := db.TeamDecisions(ctx, "", 50)
		if err != nil {
			return nil, err
		}
		v := &dashboard.TeamView{Machines: g.Machines}
		for _, r := range g.Grades {
			v.Rows = append(v.Rows, dashboard.TeamRow{Skill: r.Skill, Kind: r.Kind, Repository: r.Repository, Path: r.Path,
				Version: r.Version, Hash: r.Hash, Grade: r.Grade, Aggregate: r.Aggregate, N: r.N, Machines: r.Machines, Spread: r.Spread})
		}
		for _, x := range ds {
			v.Decisions = append(v.Decisions, dashboard.TeamDecisionRow{Time: x.Time, Skill: x.PromptID, Baseline: x.Baseline,
				Candidate: x.Candidate, Outcome: x.Outcome, Words: x.Words, DecidedBy: x.DecidedBy, Machines: x.Machines})
		}
		return v, nil
	}
}
