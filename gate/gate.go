// Package gate is the --fail-under gate of `sepad grades` and `sepad
// score` for CI: a grade or a score as the bar, each skill's version in
// force judged against it, nothing measured never passing.
package gate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/scoring"
)

// Gate is a --fail-under threshold: a grade or a score.
type Gate struct {
	grade fitness.Grade
	score float64
	text  string
}

// ErrThreshold: --fail-under is neither a grade nor a score.
var ErrThreshold = errors.New("want a grade (A+, A, B, C, D, F) or a score from 0 to 100")

// Parse reads a --fail-under value: nil for "".
func Parse(s string) (*Gate, error) {
	if s == "" {
		return nil, nil
	}
	if g, err := fitness.ParseGrade(s); err == nil {
		return &Gate{grade: g, text: string(g)}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 100 {
		return nil, fmt.Errorf("--fail-under %q: %w", s, ErrThreshold)
	}
	return &Gate{score: f, text: strconv.FormatFloat(f, 'f', -1, 64)}, nil
}

// Failed is a gate's verdict against the work: skills below it (exit 1),
// or Nothing to judge (exit 3: no skill matched, or none of those that
// did is graded; a CI job must not pass because nothing was measured).
type Failed struct {
	Nothing bool
	msg     string
}

func (e *Failed) Error() string { return e.msg }

// row is one skill's version in force, as a gate judges it.
type row struct {
	skill, project, version string
	graded                  bool
	value                   float64
	grade                   fitness.Grade
}

// pseudoSkill reports names sepad makes up (_session, which people read
// as CLAUDE.md: the instruction files of a session), which a gate leaves
// out unless they are named.
func pseudoSkill(name string) bool { return strings.HasPrefix(name, "_") }

// judge applies the gate: exit 1 naming each row below it, exit 3 when
// there is nothing to judge, nil when every graded row passes. named says
// the user selected skills by name (pseudo-skills then count).
func (g *Gate) judge(rows []row, named bool, minSamples int) error {
	var sel []row
	for _, r := range rows {
		if named || !pseudoSkill(r.skill) {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return &Failed{Nothing: true, msg: "nothing to gate: no skill matches (CLAUDE.md, the instruction files of a session, counts only when named)"}
	}
	var bad []string
	graded := 0
	for _, r := range sel {
		if !r.graded {
			continue
		}
		graded++
		if g.fails(r.grade, r.value) {
			bad = append(bad, fmt.Sprintf("%s (%s) %s: %.2f %s", query.DisplayName(r.skill), render.OrDash(r.project), r.version, r.value, r.grade))
		}
	}
	if graded == 0 {
		return &Failed{Nothing: true, msg: fmt.Sprintf("nothing to gate: %s selected, none graded yet (a version is graded from %d scored executions)",
			render.Plural(len(sel), "skill", "skills"), minSamples)}
	}
	if len(bad) > 0 {
		return &Failed{msg: fmt.Sprintf("%s below %s:\n  %s", render.Plural(len(bad), "skill", "skills"), g.text, strings.Join(bad, "\n  "))}
	}
	return nil
}

// Below reports whether a graded row is under the gate. Ungraded versions
// are never below: there is not enough evidence either way.
func (g *Gate) Below(r *query.GradeRow) bool {
	if r.Grade == "" || r.Aggregate == nil {
		return false
	}
	return g.fails(fitness.Grade(r.Grade), *r.Aggregate)
}

func (g *Gate) fails(grade fitness.Grade, value float64) bool {
	if g.grade != "" {
		return grade.Rank() < g.grade.Rank()
	}
	return value < g.score
}

// Grades judges the current versions of a grades answer; named says
// the user selected skills by name.
func (g *Gate) Grades(doc *query.Grades, named bool) error {
	var rows []row
	for _, r := range doc.Grades {
		if !r.Current {
			continue
		}
		x := row{skill: r.Skill, project: r.Project, version: render.Version(r.Version, r.Hash), graded: r.Grade != "" && r.Aggregate != nil}
		if x.graded {
			x.value, x.grade = *r.Aggregate, fitness.Grade(r.Grade)
		}
		rows = append(rows, x)
	}
	return g.judge(rows, named, doc.MinSamples)
}

// Scores judges the executions `sepad score` read: per skill (its
// prompt file, else PROJECT#name), the version its last execution ran,
// aggregated as the daemon would (trimmed, recency-weighted, graded from
// aggregate.min_samples scores). skill, when set, selects the skills of
// that name, PROJECT#name or path.
func (g *Gate) Scores(rep *scoring.Report, skill string, o aggregate.Options) error {
	type acc struct {
		row    row
		scores []float64 // oldest first, of row.version
	}
	byKey := map[string]*acc{}
	var order []string
	for _, x := range rep.Executions {
		if skill != "" && !skillSelected(skill, x) {
			continue
		}
		key := x.SkillPath
		if key == "" {
			key = x.Project + "#" + x.Skill
		}
		a := byKey[key]
		if a == nil {
			a = &acc{}
			byKey[key] = a
			order = append(order, key)
		}
		if a.row.skill == "" || a.row.version != x.SkillVersion {
			a.row = row{skill: x.Skill, project: x.Project, version: x.SkillVersion}
			a.scores = nil
		}
		if x.Scored && x.Score != nil {
			a.scores = append(a.scores, *x.Score)
		}
	}
	var rows []row
	for _, k := range order {
		a := byKey[k]
		newest := make([]float64, len(a.scores))
		for i, s := range a.scores {
			newest[len(a.scores)-1-i] = s
		}
		agg, _ := aggregate.Compute(newest, o)
		if agg.Graded {
			a.row.graded, a.row.value, a.row.grade = true, agg.Value, fitness.GradeOf(agg.Value)
		}
		if a.row.version == "" {
			a.row.version = "unknown"
		}
		rows = append(rows, a.row)
	}
	return g.judge(rows, skill != "", max(o.MinSamples, 1))
}

// skillSelected matches --skill against an execution: its name, its
// prompt file, or PROJECT#name (PROJECT the project or its last elements).
func skillSelected(arg string, x scoring.Execution) bool {
	arg = record.SkillArg(arg) // CLAUDE.md is _session
	if arg == x.Skill || (x.SkillPath != "" && arg == x.SkillPath) {
		return true
	}
	proj, name, ok := strings.Cut(arg, "#")
	return ok && name == x.Skill && (proj == x.Project || strings.HasSuffix(x.Project, "/"+strings.TrimSuffix(proj, "/")))
}
