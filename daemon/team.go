package daemon

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/dashboard"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/query"
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

// teamDashboard reads the dashboard's team views from the team database:
// a connection per page, as the CLI's (each page one connect and, for the
// grades, one round trip).
type teamDashboard struct {
	d *Daemon
	// resolve finds a skill's team identity, as the shipper does.
	resolve *team.Resolver
}

// teamReader is the dashboard's team reader (nil without team.postgres).
func teamReader(d *Daemon) dashboard.Team {
	if d.team == nil {
		return nil
	}
	uh, _ := os.UserHomeDir()
	return &teamDashboard{d: d, resolve: &team.Resolver{ClaudeDir: prompt.ConfigDirFrom(os.Getenv, uh)}}
}

func (t *teamDashboard) open(ctx context.Context) (*team.DB, team.GradesOptions, error) {
	return OpenTeam(ctx, t.d.cfg.Load())
}

// OpenTeam opens the team database cfg names (its schema checked), with
// the options its grades are computed with (the rubric and the
// aggregation cfg sets): the dashboard's team page and `sepad grades
// --team` read the same.
func OpenTeam(ctx context.Context, cfg *config.Config) (*team.DB, team.GradesOptions, error) {
	db, err := team.Open(ctx, TeamConfig(cfg))
	return db, team.GradesOptions{Rubric: scoring.Rubric(cfg), Aggregate: AggregateOptions(cfg)}, err
}

// View is the team page.
func (t *teamDashboard) View(ctx context.Context) (*dashboard.TeamView, error) {
	db, o, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	g, err := db.Grades(ctx, o)
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
	v.Decisions = teamDecisionRows(ds)
	return v, nil
}

// Skill is a skill page's team section: the prompt this machine's skill
// is in the team store (its repository and path, else its kind and
// name), every version pooled, each machine's part.
func (t *teamDashboard) Skill(ctx context.Context, s query.SkillRef) (*dashboard.TeamSkill, error) {
	p := t.resolve.Prompt(s.Kind, s.Name, s.Path, s.Project)
	out := &dashboard.TeamSkill{Prompt: p.ID}
	db, o, err := t.open(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	vs, err := db.Versions(ctx, p.ID, o)
	if errors.Is(err, team.ErrNoPrompt) {
		return out, nil // no machine shipped a run of it yet
	}
	if err != nil {
		return nil, err
	}
	for _, v := range vs.Versions {
		tv := dashboard.TeamVersion{Version: v.Version, Hash: v.Hash, Current: v.Current, Grade: v.Grade, Aggregate: v.Aggregate,
			Mean: v.Mean, SD: v.SD, N: v.N, Machines: v.Machines, Spread: v.Spread}
		for _, m := range v.PerMachine {
			tv.PerMachine = append(tv.PerMachine, dashboard.TeamMachine{Machine: m.Machine, Person: m.Person, N: m.N, Mean: m.Mean, SD: m.SD, LastRun: m.LastRun})
		}
		out.Versions = append(out.Versions, tv)
	}
	ds, err := db.TeamDecisions(ctx, p.ID, 20)
	if err != nil {
		return nil, err
	}
	out.Decisions = teamDecisionRows(ds)
	return out, nil
}

func teamDecisionRows(ds []team.TeamDecision) []dashboard.TeamDecisionRow {
	var out []dashboard.TeamDecisionRow
	for _, x := range ds {
		out = append(out, dashboard.TeamDecisionRow{Time: x.Time, Skill: x.PromptID, Baseline: x.Baseline,
			Candidate: x.Candidate, Outcome: x.Outcome, Words: x.Words, DecidedBy: x.DecidedBy, Machines: x.Machines})
	}
	return out
}
