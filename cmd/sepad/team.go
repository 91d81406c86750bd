package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/dashboard"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/internal/claudedir"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/team"
)

func init() {
	register("team", "a team's shared store on PostgreSQL: init (create or upgrade its schema), status", runTeam)
}

// teamConfig maps team.* to the package's configuration.
func teamConfig(cfg *config.Config) team.Config {
	t := cfg.Team
	return team.Config{Postgres: t.Postgres, PasswordFile: t.PasswordFile, Person: t.Person, ShareText: t.ShareText}
}

// openShipper starts the team shipper when team.postgres is set (nil
// otherwise): after the store, before the collector, so every commit
// wakes it.
func openShipper(ctx context.Context, d *daemon, cfg *config.Config) (*team.Shipper, error) {
	if strings.TrimSpace(cfg.Team.Postgres) == "" {
		return nil, nil
	}
	uh, _ := os.UserHomeDir()
	// Every daemon is one of the team's deciders (one at a time per
	// prompt): the mutation settings in force, on this rubric's scores.
	decide := mutationOptions(cfg, uh, d.home, d.logger).Decide
	sh := team.NewShipper(d.db, team.ShipperOptions{Config: teamConfig(cfg), Home: d.home,
		ClaudeDir: claudedir.From(os.Getenv, uh), Logger: d.logger, Decide: &decide, Rubric: rubricOf(cfg),
		Notify: noticeWriter(d.home)})
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

func runTeam(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	usage := usageErrorf("usage: sepad team init | status [--json]")
	fs := newFlagSet("team", stderr)
	home := fs.String("home", "", "state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	cfgPath := fs.String("config", "", "configuration file (default $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml)")
	asJSON := fs.Bool("json", false, "status: print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usage
	}
	args = pos
	cfg, err := config.Load(config.Path(*cfgPath))
	if err != nil {
		return err
	}
	h := *home
	if h == "" {
		h = hooks.Home()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	switch args[0] {
	case "init":
		return teamInit(ctx, cfg, stdout)
	case "status":
		return teamStatus(ctx, cfg, h, *asJSON, stdout)
	}
	return usage
}

// teamInit creates or upgrades the team database's schema.
func teamInit(ctx context.Context, cfg *config.Config, stdout io.Writer) error {
	db, err := team.Connect(ctx, teamConfig(cfg))
	if err != nil {
		return err
	}
	defer db.Close()
	from, to, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	if from == to {
		fmt.Fprintf(stdout, "team database schema is version %d: up to date\n", to)
	} else {
		fmt.Fprintf(stdout, "team database schema upgraded from version %d to %d\n", from, to)
	}
	return nil
}

// teamStatusDoc is `sepad team status --json`.
type teamStatusDoc struct {
	team.Status
	// Database is the team database's schema as this command found it
	// (reachable, schema version, error).
	Database teamDBState `json:"database"`
}

type teamDBState struct {
	Reachable bool   `json:"reachable"`
	Schema    int    `json:"schema_version"`
	Want      int    `json:"schema_wanted"`
	Error     string `json:"error,omitempty"`
}

// teamStatus reports what the daemon's shipper last wrote (pending,
// shipped, last error, lag) and reaches the database itself.
func teamStatus(ctx context.Context, cfg *config.Config, home string, asJSON bool, stdout io.Writer) error {
	if strings.TrimSpace(cfg.Team.Postgres) == "" {
		return team.ErrNotConfigured
	}
	doc := teamStatusDoc{Database: teamDBState{Want: team.SchemaVersion}}
	if st, err := team.ReadStatus(home); err == nil {
		doc.Status = *st
	} else if errors.Is(err, os.ErrNotExist) {
		doc.Status.Configured = true
		// No daemon has shipped from this home: count from the store.
		if db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{ReadOnly: true, LockTimeout: directLockTimeout}); err == nil {
			if ob, err := db.Outbox(team.OutboxName); err == nil {
				doc.Pending, doc.Shipped = ob.Pending, ob.Shipped
			}
			db.Close()
		}
	} else {
		return err
	}
	if db, err := team.Connect(ctx, teamConfig(cfg)); err != nil {
		doc.Database.Error = err.Error()
	} else {
		doc.Database.Reachable = true
		if v, err := db.Schema(ctx); err != nil {
			doc.Database.Error = err.Error()
		} else {
			doc.Database.Schema = v
		}
		db.Close()
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	}
	fmt.Fprintf(stdout, "machine   %s\n", orDash(doc.Machine))
	fmt.Fprintf(stdout, "pending   %d executions\n", doc.Pending)
	fmt.Fprintf(stdout, "shipped   %d executions\n", doc.Shipped)
	if doc.Pending > 0 {
		fmt.Fprintf(stdout, "lag       %s\n", (time.Duration(doc.LagSeconds) * time.Second).String())
	}
	if doc.LastShipped != nil {
		fmt.Fprintf(stdout, "last      shipped %s\n", doc.LastShipped.Local().Format(time.DateTime))
	}
	if doc.LastError != "" {
		fmt.Fprintf(stdout, "error     %s\n", doc.LastError)
	}
	switch {
	case !doc.Database.Reachable:
		fmt.Fprintf(stdout, "database  unreachable: %s\n", doc.Database.Error)
	case doc.Database.Error != "":
		fmt.Fprintf(stdout, "database  %s\n", doc.Database.Error)
	case doc.Database.Schema == team.SchemaVersion:
		fmt.Fprintf(stdout, "database  reachable, schema version %d\n", doc.Database.Schema)
	case doc.Database.Schema < team.SchemaVersion:
		fmt.Fprintf(stdout, "database  reachable, schema version %d (run `sepad team init` for %d)\n", doc.Database.Schema, team.SchemaVersion)
	default:
		fmt.Fprintf(stdout, "database  reachable, schema version %d is newer than this sepad's %d: upgrade sepad\n", doc.Database.Schema, team.SchemaVersion)
	}
	return nil
}

// openTeamDB connects to the team database of the configuration qf
// names, checking its schema.
func openTeamDB(ctx context.Context, qf queryFlags) (*team.DB, *config.Config, error) {
	cfg, err := config.Load(config.Path(qf.config))
	if err != nil {
		return nil, nil, err
	}
	db, err := team.Open(ctx, teamConfig(cfg))
	return db, cfg, err
}

// teamGrades is `sepad grades --team`: every machine's runs pooled.
func teamGrades(qf queryFlags, match string, all bool, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, cfg, err := openTeamDB(ctx, qf)
	if err != nil {
		return err
	}
	defer db.Close()
	g, err := db.Grades(ctx, team.GradesOptions{Rubric: rubricOf(cfg), Aggregate: aggregateOptions(cfg), Match: match, AllVersions: all})
	if err != nil {
		return err
	}
	if qf.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(g)
	}
	doc := &query.Grades{RubricVersion: g.RubricVersion, MinSamples: g.MinSamples}
	for _, r := range g.Grades {
		doc.Grades = append(doc.Grades, r.GradeRow)
	}
	render.Grades(stdout, doc, all)
	fmt.Fprintf(stdout, "team: %d machines; n counts every machine's runs (--json: machines per version)\n", g.Machines)
	return nil
}

// teamExecutions is `sepad executions --team`.
func teamExecutions(qf queryFlags, skill string, limit int, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, _, err := openTeamDB(ctx, qf)
	if err != nil {
		return err
	}
	defer db.Close()
	ex, err := db.Executions(ctx, team.ExecutionsOptions{Match: skill, Limit: limit})
	if err != nil {
		return err
	}
	if qf.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	rows := make([]query.ExecRow, len(ex.Executions))
	for i, r := range ex.Executions {
		rows[i] = r.ExecRow
		rows[i].Project = r.Machine[:min(8, len(r.Machine))] // the machine, where a project stands locally
	}
	printExecutions(stdout, rows)
	return nil
}

// teamVersions is `sepad versions SKILL --team`.
func teamVersions(qf queryFlags, skill string, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, cfg, err := openTeamDB(ctx, qf)
	if err != nil {
		return err
	}
	defer db.Close()
	vs, err := db.Versions(ctx, skill, team.GradesOptions{Rubric: rubricOf(cfg), Aggregate: aggregateOptions(cfg)})
	if err != nil {
		return err
	}
	if qf.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(vs)
	}
	doc := &query.SkillVersions{RubricVersion: vs.RubricVersion, MinSamples: vs.MinSamples,
		Skill: query.SkillRef{Key: vs.Skill.ID, Name: vs.Skill.Name, Kind: vs.Skill.Kind, Project: vs.Skill.Repository}}
	for _, v := range vs.Versions {
		doc.Versions = append(doc.Versions, v.GradeRow.GradeRow)
	}
	printVersions(stdout, doc)
	tw := tabwriter.NewWriter(trimTrailing(stdout), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tMACHINE\tN\tMEAN\tSD\tLAST RUN")
	for _, v := range vs.Versions {
		for _, m := range v.PerMachine {
			fmt.Fprintf(tw, "v%d\t%s\t%d\t%s\t%s\t%s\n", v.Version, m.Machine[:min(12, len(m.Machine))], m.N, fmtScore(m.Mean), fmtScore(m.SD), fmtTimePtr(m.LastRun))
		}
	}
	return tw.Flush()
}

// teamDecisions is `sepad decisions --team`.
func teamDecisions(qf queryFlags, skill string, limit int, stdout io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, _, err := openTeamDB(ctx, qf)
	if err != nil {
		return err
	}
	defer db.Close()
	ds, err := db.TeamDecisions(ctx, skill, limit)
	if err != nil {
		return err
	}
	if qf.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Team      bool                `json:"team"`
			Decisions []team.TeamDecision `json:"decisions"`
		}{true, ds})
	}
	if len(ds) == 0 {
		fmt.Fprintln(stdout, "no team decisions yet")
		return nil
	}
	for _, d := range ds {
		fmt.Fprintf(stdout, "%s  %s  %s → %s  %s (%s), %d machines, decided by %s\n  %s\n", fmtTime(d.Time), d.PromptID,
			d.Baseline, d.Candidate, d.Outcome, d.Reason, d.Machines, d.DecidedBy[:min(12, len(d.DecidedBy))], d.Words)
	}
	return nil
}

// teamView reads the dashboard's team page from the team database (nil
// without team.postgres): a connection per page, as the CLI's.
func teamView(d *daemon) func(ctx context.Context) (*dashboard.TeamView, error) {
	if d.team == nil {
		return nil
	}
	return func(ctx context.Context) (*dashboard.TeamView, error) {
		cfg := d.cfg.Load()
		db, err := team.Open(ctx, teamConfig(cfg))
		if err != nil {
			return nil, err
		}
		defer db.Close()
		g, err := db.Grades(ctx, team.GradesOptions{Rubric: rubricOf(cfg), Aggregate: aggregateOptions(cfg)})
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
