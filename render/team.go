package render

import (
	"fmt"
	"io"
	"time"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/team"
)

// The `--team` views: the local tables over every machine's pooled runs,
// with the team's columns (docs/team.md).

// TeamGrades writes `sepad grades --team`: the grades table of the pooled
// rows and the number of machines.
func TeamGrades(w io.Writer, g *team.Grades, all bool) {
	doc := &query.Grades{RubricVersion: g.RubricVersion, MinSamples: g.MinSamples}
	for _, r := range g.Grades {
		doc.Grades = append(doc.Grades, r.GradeRow)
	}
	Grades(w, doc, all)
	fmt.Fprintf(w, "team: %s; n counts every machine's runs (--json: machines per version)\n", Plural(g.Machines, "machine", "machines"))
}

// TeamExecutions writes `sepad executions --team`: the machine stands
// where a project stands locally.
func TeamExecutions(w io.Writer, ex *team.Executions) {
	rows := make([]query.ExecRow, len(ex.Executions))
	for i, r := range ex.Executions {
		rows[i] = r.ExecRow
		rows[i].Project = r.Machine[:min(8, len(r.Machine))]
	}
	Executions(w, rows)
}

// TeamVersions writes `sepad versions SKILL --team`: the versions table
// of the pooled rows, then each machine's part of each version.
func TeamVersions(w io.Writer, vs *team.Versions) error {
	doc := &query.SkillVersions{RubricVersion: vs.RubricVersion, MinSamples: vs.MinSamples,
		Skill: query.SkillRef{Key: vs.Skill.ID, Name: vs.Skill.Name, Kind: vs.Skill.Kind, Project: vs.Skill.Repository}}
	for _, v := range vs.Versions {
		doc.Versions = append(doc.Versions, v.GradeRow.GradeRow)
	}
	Versions(w, doc)
	tw := Table(w)
	fmt.Fprintln(tw, "VERSION\tMACHINE\tN\tMEAN\tSD\tLAST RUN")
	for _, v := range vs.Versions {
		for _, m := range v.PerMachine {
			fmt.Fprintf(tw, "v%d\t%s\t%d\t%s\t%s\t%s\n", v.Version, m.Machine[:min(12, len(m.Machine))], m.N, Score(m.Mean), Score(m.SD), TimePtr(m.LastRun))
		}
	}
	return tw.Flush()
}

// TeamDecisions writes `sepad decisions --team`.
func TeamDecisions(w io.Writer, ds []team.TeamDecision) {
	if len(ds) == 0 {
		fmt.Fprintln(w, "no team decisions yet")
		return
	}
	// The words say why; the rule's id (reason) stays in --json.
	for _, d := range ds {
		fmt.Fprintf(w, "%s  %s  %s → %s  %s, %s, decided by %s\n  %s\n", Time(d.Time), d.PromptID,
			d.Baseline, d.Candidate, d.Outcome, Plural(d.Machines, "machine", "machines"), d.DecidedBy[:min(12, len(d.DecidedBy))], d.Words)
	}
}

// TeamStatus writes `sepad team status`: the shipper's state and the
// team database's.
func TeamStatus(w io.Writer, doc *team.Report) {
	fmt.Fprintf(w, "machine   %s\n", OrDash(doc.Machine))
	fmt.Fprintf(w, "pending   %s\n", Plural(int(doc.Pending), "execution", "executions"))
	fmt.Fprintf(w, "shipped   %s\n", Plural(int(doc.Shipped), "execution", "executions"))
	if doc.Pending > 0 {
		fmt.Fprintf(w, "lag       %s\n", (time.Duration(doc.LagSeconds) * time.Second).String())
	}
	if doc.LastShipped != nil {
		fmt.Fprintf(w, "last      shipped %s\n", doc.LastShipped.Local().Format(time.DateTime))
	}
	if doc.LastError != "" {
		fmt.Fprintf(w, "error     %s\n", doc.LastError)
	}
	switch {
	case !doc.Database.Reachable:
		fmt.Fprintf(w, "database  unreachable: %s\n", doc.Database.Error)
	case doc.Database.Error != "":
		fmt.Fprintf(w, "database  %s\n", doc.Database.Error)
	case doc.Database.Schema == team.SchemaVersion:
		fmt.Fprintf(w, "database  reachable, schema version %d\n", doc.Database.Schema)
	case doc.Database.Schema < team.SchemaVersion:
		fmt.Fprintf(w, "database  reachable, schema version %d (run `sepad team init` for %d)\n", doc.Database.Schema, team.SchemaVersion)
	default:
		fmt.Fprintf(w, "database  reachable, schema version %d is newer than this sepad's %d: upgrade sepad\n", doc.Database.Schema, team.SchemaVersion)
	}
}

// TeamSchema says what `sepad team init` did to the schema.
func TeamSchema(w io.Writer, from, to int) {
	if from == to {
		fmt.Fprintf(w, "team database schema is version %d: up to date\n", to)
	} else {
		fmt.Fprintf(w, "team database schema upgraded from version %d to %d\n", from, to)
	}
}
