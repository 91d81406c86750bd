package dashboard

import (
	"context"
	"net/http"
	"time"

	"github.com/sepad/sepad/query"
)

// The team page and the team section of a skill's page (with
// team.postgres): every machine's runs pooled, read from the team
// database through Options.Team, which the daemon implements with package
// team (the dashboard does not speak to PostgreSQL itself). Neither is
// cached by the local store's generation: other machines' runs change
// them without a local write.

// Team reads the team's views from the team database.
type Team interface {
	// View is the team page: each prompt's current version, pooled.
	View(ctx context.Context) (*TeamView, error)
	// Skill is the team's part of a skill's page: the prompt that skill
	// is in the team store, every version pooled, each machine's part.
	Skill(ctx context.Context, skill query.SkillRef) (*TeamSkill, error)
}

// TeamSkill is the team section of a skill's page.
type TeamSkill struct {
	// Prompt is the prompt's team identity (REPOSITORY:PATH, or
	// KIND/NAME for a user-level prompt).
	Prompt string
	// Versions are newest first; none when no machine shipped a run.
	Versions  []TeamVersion
	Decisions []TeamDecisionRow
}

// TeamVersion is one version's runs over every machine.
type TeamVersion struct {
	// Version numbers the team's versions in the order it first saw them.
	Version   int
	Hash      string
	Current   bool
	Grade     string
	Aggregate *float64
	Mean, SD  *float64
	// N is the pooled scored runs, Machines how many machines ran it,
	// Spread the standard deviation of the machines' means (nil below 2).
	N, Machines int
	Spread      *float64
	PerMachine  []TeamMachine
}

// TeamMachine is one machine's part of a version's runs.
type TeamMachine struct {
	Machine, Person string
	N               int
	Mean, SD        *float64
	LastRun         *time.Time
}

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
	v, err := d.o.Team.View(ctx)
	if err != nil {
		// The team database away is a state to show, not a failed page:
		// this machine's own pages work as ever.
		p.Error = err.Error()
		return p, nil
	}
	p.TeamView = *v
	return p, nil
}

// teamSkill is the team section of a skill's page: the version names
// this machine gives the same hashes, and the team database away said,
// not failed.
type teamSkill struct {
	*TeamSkill
	Error string
	// Local is this machine's vN of a hash, when it ran that version.
	Local map[string]int
}

func (d *Dashboard) teamSkill(r *http.Request, s query.SkillRef, seqOf map[string]int) *teamSkill {
	if d.o.Team == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	v, err := d.o.Team.Skill(ctx, s)
	if err != nil {
		return &teamSkill{Error: err.Error()}
	}
	return &teamSkill{TeamSkill: v, Local: seqOf}
}
