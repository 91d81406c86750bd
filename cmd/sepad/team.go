package main

import (
	"context"
	"io"
	"time"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/daemon"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/team"
)

func init() {
	register("team", "a team's shared store on PostgreSQL: init (create or upgrade its schema), status", runTeam)
}

func runTeam(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	usage := usageErrorf("usage: sepad team init | status [--json]")
	fs := newFlagSet("team", stderr)
	home := fs.String("home", "", "state directory `DIR` (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	cfgPath := fs.String("config", "", "configuration `FILE` (default $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml)")
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
		h = spool.Home()
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
	db, err := team.Connect(ctx, daemon.TeamConfig(cfg))
	if err != nil {
		return err
	}
	defer db.Close()
	from, to, err := db.Migrate(ctx)
	if err != nil {
		return err
	}
	render.TeamSchema(stdout, from, to)
	return nil
}

// teamStatus reports what the daemon's shipper last wrote and reaches
// the database itself.
func teamStatus(ctx context.Context, cfg *config.Config, home string, asJSON bool, stdout io.Writer) error {
	doc, err := team.ReadReport(ctx, daemon.TeamConfig(cfg), home, client.DirectLockTimeout)
	if err != nil {
		return err
	}
	if asJSON {
		return printIndented(stdout, doc)
	}
	render.TeamStatus(stdout, doc)
	return nil
}

// teamQuery runs ask on the team database of the configuration qf names
// (its schema checked), then prints its answer: as JSON with --json, else
// through text.
func teamQuery[T any](qf queryFlags, stdout io.Writer, ask func(context.Context, *team.DB, team.GradesOptions) (T, error), text func(io.Writer, T) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg, err := config.Load(config.Path(qf.config))
	if err != nil {
		return err
	}
	db, o, err := daemon.OpenTeam(ctx, cfg)
	if err != nil {
		return err
	}
	defer db.Close()
	v, err := ask(ctx, db, o)
	if err != nil {
		return err
	}
	if qf.json {
		return printIndented(stdout, v)
	}
	return text(stdout, v)
}

// teamGrades is `sepad grades --team`: every machine's runs pooled.
func teamGrades(qf queryFlags, match string, all bool, stdout io.Writer) error {
	return teamQuery(qf, stdout, func(ctx context.Context, db *team.DB, o team.GradesOptions) (*team.Grades, error) {
		o.Match, o.AllVersions = match, all
		return db.Grades(ctx, o)
	}, func(w io.Writer, g *team.Grades) error { render.TeamGrades(w, g, all); return nil })
}

// teamExecutions is `sepad executions --team`.
func teamExecutions(qf queryFlags, skill string, limit int, stdout io.Writer) error {
	return teamQuery(qf, stdout, func(ctx context.Context, db *team.DB, _ team.GradesOptions) (*team.Executions, error) {
		return db.Executions(ctx, team.ExecutionsOptions{Match: skill, Limit: limit})
	}, func(w io.Writer, ex *team.Executions) error { render.TeamExecutions(w, ex); return nil })
}

// teamVersions is `sepad versions SKILL --team`.
func teamVersions(qf queryFlags, skill string, stdout io.Writer) error {
	return teamQuery(qf, stdout, func(ctx context.Context, db *team.DB, o team.GradesOptions) (*team.Versions, error) {
		return db.Versions(ctx, skill, o)
	}, render.TeamVersions)
}

// teamDecisionsDoc is `sepad decisions --team --json`.
type teamDecisionsDoc struct {
	Team      bool                `json:"team"`
	Decisions []team.TeamDecision `json:"decisions"`
}

// teamDecisions is `sepad decisions --team`.
func teamDecisions(qf queryFlags, skill string, limit int, stdout io.Writer) error {
	return teamQuery(qf, stdout, func(ctx context.Context, db *team.DB, _ team.GradesOptions) (teamDecisionsDoc, error) {
		ds, err := db.TeamDecisions(ctx, skill, limit)
		return teamDecisionsDoc{true, ds}, err
	}, func(w io.Writer, d teamDecisionsDoc) error { render.TeamDecisions(w, d.Decisions); return nil })
}
