package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render/words"
)

// Grades writes `sepad grades`'s table of doc: one row per skill (all:
// per version, with its over-claims), then why each undecided candidate
// is undecided, the eval evidence and the rubric.
func Grades(w io.Writer, doc *query.Grades, all bool) {
	if len(doc.Grades) == 0 {
		fmt.Fprintln(w, "no skills yet: nothing has been scored.")
		fmt.Fprintln(w, "A turn's last execution is scored when the session's next prompt arrives (it may be a")
		fmt.Fprintln(w, "correction), at SessionEnd, or after collector.idle_timeout; `sepad status` counts open executions.")
		return
	}
	pl := projectLabels(doc.Grades, func(r *query.GradeRow) string { return r.Project })
	tw := Table(w)
	over := ""
	if all {
		over = "OVER-CLAIMS\t" // per version: runs whose answer claimed more than the calls showed
	}
	fmt.Fprintln(tw, "SKILL\tPROJECT\tVERSION\tSTATUS\tN\tAGGREGATE\tGRADE\tCHANGE\tLAST\tTOKENS/RUN\t"+over+"ADVICE")
	var line strings.Builder
	cells := make([]string, 0, 12)
	for i := range doc.Grades {
		r := &doc.Grades[i]
		ver := Version(r.Version, r.Hash)
		if all && r.Current {
			ver += " *"
		}
		// One string per row, not Fprintf's boxed arguments: on 1,000
		// rows the formatting cost as much as the decoding.
		cells = append(cells[:0], query.DisplayName(r.Skill), pl[r.Project], ver, Status(r), strconv.Itoa(r.N),
			Score(r.Aggregate), Grade(r.Grade), ChangeVs(r), Score(r.LastScore), Tokens(r.Tokens, r.TokenChange))
		if all {
			cells = append(cells, OverClaims(r))
		}
		cells = append(cells, r.Advice)
		line.Reset()
		for j, c := range cells {
			if j > 0 {
				line.WriteByte('\t')
			}
			line.WriteString(c)
		}
		line.WriteByte('\n')
		io.WriteString(tw, line.String())
	}
	tw.Flush()
	Covers(w, doc.Grades, pl)
	Pending(w, doc.Grades)
	Models(w, doc.Grades, false)
	Evals(w, doc.Grades)
	Activation(w, doc.Grades, all, pl)
	fmt.Fprintf(w, "\nrubric %s; a version is graded from %d scored executions", doc.RubricVersion, doc.MinSamples)
	if all {
		fmt.Fprint(w, "; * marks the version in force; OVER-CLAIMS: runs whose answer claimed more than its tool calls showed (not part of the score)")
	}
	fmt.Fprintln(w)
}

// Status is a row's status, with the runs an undecided candidate still
// needs.
func Status(r *query.GradeRow) string {
	if r.NeededMore != nil {
		return fmt.Sprintf("%s, needs ~%s", r.Status, Plural(*r.NeededMore, "run", "runs"))
	}
	return OrDash(r.Status)
}

// OverClaims is "3/12 (25%)": a version's runs whose final answer
// claimed more than its calls showed, of its scored runs; "-" for none.
func OverClaims(r *query.GradeRow) string {
	if r.OverClaims == 0 || r.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", r.OverClaims, r.N, 100*float64(r.OverClaims)/float64(r.N))
}

// Pending says, under a table, why each undecided candidate is still
// undecided.
func Pending(w io.Writer, rows []query.GradeRow) {
	for i := range rows {
		if r := &rows[i]; r.Pending != "" {
			fmt.Fprintf(w, "%s: %s\n", query.DisplayName(r.Skill), r.Pending)
		}
	}
}

// Evals puts each version's eval evidence beside its online grade:
// "deploy v3 81.2 A over 40 runs · evals 0.92 over 4 cases × 3 runs, +0.31
// against no skill".
func Evals(w io.Writer, rows []query.GradeRow) {
	first := true
	for _, r := range rows {
		if r.Evals == nil {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, "%s v%d %s %s over %s · %s\n", query.DisplayName(r.Skill), r.Version, Score(r.Aggregate), Grade(r.Grade), Plural(r.N, "run", "runs"), r.Evals.Summary)
	}
}

// Covers says, under a table, which instruction files each CLAUDE.md row
// (the session's base prompt) covers: "CLAUDE.md v2 (proj) covers
// CLAUDE.md, docs/guide.md, /home/me/.claude/CLAUDE.md". A version listed
// twice (every version of one skill) is named once per version.
func Covers(w io.Writer, rows []query.GradeRow, projects map[string]string) {
	for i := range rows {
		r := &rows[i]
		if len(r.Files) == 0 {
			continue
		}
		where := ""
		if p := projects[r.Project]; p != "" && p != "-" {
			where = " (" + p + ")"
		}
		fmt.Fprintf(w, "%s v%d%s covers %s\n", query.DisplayName(r.Skill), r.Version, where, strings.Join(r.Files, ", "))
	}
}

// Activation says under a table how each skill comes to run under the
// description in force (docs/activation.md): "release: the model used it
// 4 times on its own; …", and how its last description edit did on
// activation, beside (never in) the score. With all, only the rows of
// the versions in force speak. A name used in several projects is
// followed by its project's label in projects ("deploy (proj2)").
func Activation(w io.Writer, rows []query.GradeRow, all bool, projects map[string]string) {
	seen := map[string]string{}
	shared := map[string]bool{}
	for i := range rows {
		if p, ok := seen[rows[i].Skill]; ok && p != rows[i].Project {
			shared[rows[i].Skill] = true
		}
		seen[rows[i].Skill] = rows[i].Project
	}
	first := true
	for i := range rows {
		r := &rows[i]
		if r.Activation == nil || (all && !r.Current) {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		a := r.Activation
		name := r.Skill
		if p := projects[r.Project]; shared[r.Skill] && p != "" {
			name += " (" + p + ")"
		}
		fmt.Fprintf(w, "%s activation, description of v%d: %s\n", name, a.Since, a.Words)
		if c := a.Comparison; c != nil {
			fmt.Fprintf(w, "%s description edit (v%d after v%d), on activation: %s\n", name, c.Candidate, c.Baseline, c.Words)
		}
	}
}

// tableRow is the part of a query.GradeRow that the table and the
// gate read, with the same JSON names and types (a test checks them):
// decoding only these takes half the time of a whole row, the largest
// part of `sepad grades` on a big store (BENCHMARKS.md). A field the
// table starts to show must be added here.
type tableRow struct {
	Skill       string               `json:"skill"`
	Project     string               `json:"project"`
	Version     int                  `json:"version"`
	Hash        string               `json:"hash"`
	Current     bool                 `json:"current"`
	Status      string               `json:"status"`
	N           int                  `json:"n"`
	Aggregate   *float64             `json:"aggregate"`
	Grade       string               `json:"grade"`
	Advice      string               `json:"advice"`
	Change      *float64             `json:"change"`
	ChangeFrom  int                  `json:"change_from,omitempty"`
	LastScore   *float64             `json:"last_score"`
	Tokens      *query.Tokens        `json:"tokens,omitempty"`
	TokenChange *float64             `json:"token_change,omitempty"`
	NeededMore  *int                 `json:"needed_more,omitempty"`
	Models      []query.ModelRuns    `json:"models,omitempty"`
	Pending     string               `json:"pending,omitempty"`
	OverClaims  int                  `json:"over_claims"`
	Evals       *query.EvalRow       `json:"evals,omitempty"`
	Files       []string             `json:"files,omitempty"`
	Activation  *query.ActivationRow `json:"activation,omitempty"`
}

// DecodeGrades decodes GET /v1/skills into the fields of its rows that
// Grades draws (and a gate reads).
func DecodeGrades(body []byte) (*query.Grades, error) {
	var doc struct {
		RubricVersion string     `json:"rubric_version"`
		MinSamples    int        `json:"min_samples"`
		Grades        []tableRow `json:"grades"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("malformed answer: %w", err)
	}
	g := &query.Grades{RubricVersion: doc.RubricVersion, MinSamples: doc.MinSamples, Grades: make([]query.GradeRow, len(doc.Grades))}
	for i, r := range doc.Grades {
		g.Grades[i] = query.GradeRow{Skill: r.Skill, Project: r.Project, Files: r.Files, Version: r.Version, Hash: r.Hash, Current: r.Current,
			Status: r.Status, N: r.N, Aggregate: r.Aggregate, Grade: r.Grade, Advice: r.Advice, Change: r.Change, ChangeFrom: r.ChangeFrom, LastScore: r.LastScore,
			Tokens: r.Tokens, TokenChange: r.TokenChange, NeededMore: r.NeededMore, Pending: r.Pending, OverClaims: r.OverClaims, Evals: r.Evals,
			Activation: r.Activation}
	}
	return g, nil
}

// Models says which models ran each version, when it matters: a version
// run by more than one model, or (versions, one skill's rows) versions
// run by different models. A decision compares runs of the same model
// (docs/decisions.md), so a model switch is not read as the prompt's
// doing: "deploy v3 ran on claude-opus-4-5 (8 runs) and
// claude-sonnet-4-5 (2 runs)".
func Models(w io.Writer, rows []query.GradeRow, oneSkill bool) {
	seen := map[string]bool{}
	for _, r := range rows {
		for _, m := range r.Models {
			seen[m.Model] = true
		}
	}
	for _, r := range rows {
		if len(r.Models) > 1 || oneSkill && len(seen) > 1 && len(r.Models) > 0 {
			fmt.Fprintf(w, "%s v%d ran on %s\n", query.DisplayName(r.Skill), r.Version, ModelMix(r.Models))
		}
	}
}

// ModelMix is "claude-opus-4-5 (8 runs) and claude-sonnet-4-5 (2 runs)",
// or the one model's name.
func ModelMix(ms []query.ModelRuns) string {
	if len(ms) == 1 {
		return ms[0].Model
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%s (%s)", m.Model, words.Runs(m.N))
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
