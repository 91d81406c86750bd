package dashboard

import (
	"context"
	"net/http"
	"time"
)

// The team page (with team.postgres): every machine's runs pooled, read
// from the team database through Options.Team, which the daemon wires to
// package team (the dashboard does not speak to PostgreSQL itself). It is
// never cached by the local store's generation: other machines' runs
// change it without a local write.

// TeamView is what the team page shows.
type TeamView struct {
	// Machines counts the machines that ever shipped.
	Machines  int
	Rows      []TeamRow
	Decisions []TeamDecisionRow
}

// TeamRow is a prompt's current version over every machine's runs.
type TeamRow struct {
	Skill, Kind, Repository, Path string
	Version                       int
	Hash                          string
	Grade                         string
	Aggregate                     *float64
	// N is the pooled scored runs, Machines how many machines ran it,
	// Spread the standard deviation of the machines' means (nil below 2).
	N        int
	Machines int
	Spread   *float64
}

// TeamDecisionRow is one of the team's decisions.
type TeamDecisionRow struct {
	Time                       time.Time
	Skill, Baseline, Candidate string
	Outcome, Words, DecidedBy  string
	Machines                   int
}

type teamPage struct {
	base
	TeamView
	Error string
}

func (d *Dashboard) team(r *http.Request) (any, error) {
	p := &teamPage{base: d.base(r, "Team")}
	p.Nav = "team"
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	v, err := d.o.Team(ctx)
	if err != nil {
		// The team database away is a state to show, not a failed page:
		// this machine's own pages work as ever.
		p.Error = err.Error()
		return p, nil
	}
	p.TeamView = *v
	return p, nil
}
