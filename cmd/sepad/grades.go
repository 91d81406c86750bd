package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/query"
)

func init() {
	register("grades", "grade of every skill's current version (or every version); --fail-under gates CI", runGrades)
}

// gate is a --fail-under threshold: a grade or a score.
type gate struct {
	grade fitness.Grade
	score float64
	text  string
}

func parseGate(s string) (*gate, error) {
	if s == "" {
		return nil, nil
	}
	if g, err := fitness.ParseGrade(s); err == nil {
		return &gate{grade: g, text: string(g)}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 100 {
		return nil, usageErrorf("--fail-under %q: want a grade (A+, A, B, C, D, F) or a score from 0 to 100", s)
	}
	return &gate{score: f, text: strconv.FormatFloat(f, 'f', -1, 64)}, nil
}

func runGrades(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("grades", stderr)
	var qf queryFlags
	qf.add(fs)
	all := fs.Bool("all-versions", false, "one row per version instead of one per skill")
	failUnder := fs.String("fail-under", "", "exit 1 when a selected skill's current version grades below GRADE or scores below SCORE")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad grades [SKILL] [--all-versions] [--fail-under GRADE|SCORE] [--json]")
		fmt.Fprintln(stderr, "SKILL is a name (every project), PROJECT#name, or the prompt file's path.")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("grades takes at most one SKILL, got %d arguments", len(pos))
	}
	g, err := parseGate(*failUnder)
	if err != nil {
		return err
	}
	v := url.Values{}
	if len(pos) == 1 {
		v.Set("match", skillArgument(pos[0]))
	}
	if *all {
		v.Set("all_versions", "true")
	}
	path := "/v1/skills"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	body, err := fetch(qf, path, nil)
	if err != nil {
		if g != nil && isNotFound(err) {
			return &exitError{code: exitNothingToGate, err: fmt.Errorf("nothing to gate: %w", err)}
		}
		return err
	}
	if qf.json {
		if err := printJSON(stdout, body); err != nil || g == nil {
			return err // --json alone decodes nothing: the document goes out as it came
		}
	}
	doc, err := decodeGradeTable(body)
	if err != nil {
		return err
	}
	if !qf.json {
		printGrades(stdout, doc, *all)
	}
	if g == nil {
		return nil
	}
	return checkGate(g, doc, len(pos) == 1)
}

// gradeTableRow is the part of a query.GradeRow that the table and the
// gate read, with the same JSON names and types (a test checks them):
// decoding only these takes half the time of a whole row, the largest
// part of `sepad grades` on a big store (BENCHMARKS.md). A field the
// table starts to show must be added here.
type gradeTableRow struct {
	Skill       string         `json:"skill"`
	Project     string         `json:"project"`
	Version     int            `json:"version"`
	Hash        string         `json:"hash"`
	Current     bool           `json:"current"`
	Status      string         `json:"status"`
	N           int            `json:"n"`
	Aggregate   *float64       `json:"aggregate"`
	Grade       string         `json:"grade"`
	Advice      string         `json:"advice"`
	Change      *float64       `json:"change"`
	LastScore   *float64       `json:"last_score"`
	Tokens      *query.Tokens  `json:"tokens,omitempty"`
	TokenChange *float64       `json:"token_change,omitempty"`
	NeededMore  *int           `json:"needed_more,omitempty"`
	Pending     string         `json:"pending,omitempty"`
	OverClaims  int            `json:"over_claims"`
	Evals       *query.EvalRow `json:"evals,omitempty"`
}

// decodeGradeTable decodes GET /v1/skills into the rows' table fields.
func decodeGradeTable(body []byte) (*query.Grades, error) {
	var doc struct {
		RubricVersion string          `json:"rubric_version"`
		MinSamples    int             `json:"min_samples"`
		Grades        []gradeTableRow `json:"grades"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("malformed answer: %w", err)
	}
	g := &query.Grades{RubricVersion: doc.RubricVersion, MinSamples: doc.MinSamples, Grades: make([]query.GradeRow, len(doc.Grades))}
	for i, r := range doc.Grades {
		g.Grades[i] = query.GradeRow{Skill: r.Skill, Project: r.Project, Version: r.Version, Hash: r.Hash, Current: r.Current,
			Status: r.Status, N: r.N, Aggregate: r.Aggregate, Grade: r.Grade, Advice: r.Advice, Change: r.Change, LastScore: r.LastScore,
			Tokens: r.Tokens, TokenChange: r.TokenChange, NeededMore: r.NeededMore, Pending: r.Pending, OverClaims: r.OverClaims, Evals: r.Evals}
	}
	return g, nil
}

func printGrades(w io.Writer, doc *query.Grades, all bool) {
	if len(doc.Grades) == 0 {
		fmt.Fprintln(w, "no skills yet: nothing has been scored.")
		fmt.Fprintln(w, "A turn's last execution is scored when the session's next prompt arrives (it may be a")
		fmt.Fprintln(w, "correction), at SessionEnd, or after collector.idle_timeout; `sepad status` counts open executions.")
		return
	}
	var projects []string
	for _, r := range doc.Grades {
		projects = append(projects, r.Project)
	}
	pl := projectLabels(projects)
	tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
	over := ""
	if all {
		over = "OVER-CLAIMS\t" // per version: runs whose answer claimed more than the calls showed
	}
	fmt.Fprintln(tw, "SKILL\tPROJECT\tVERSION\tSTATUS\tN\tAGGREGATE\tGRADE\tCHANGE\tLAST\tTOKENS/RUN\t"+over+"ADVICE")
	var line strings.Builder
	cells := make([]string, 0, 12)
	for i := range doc.Grades {
		r := &doc.Grades[i]
		ver := fmtVersion(r.Version, r.Hash)
		if all && r.Current {
			ver += " *"
		}
		// One string per row, not Fprintf's boxed arguments: on 1,000
		// rows the formatting cost as much as the decoding.
		cells = append(cells[:0], r.Skill, pl[r.Project], ver, fmtStatus(r), strconv.Itoa(r.N),
			fmtScore(r.Aggregate), fmtGrade(r.Grade), fmtChange(r.Change), fmtScore(r.LastScore), fmtTokens(r.Tokens, r.TokenChange))
		if all {
			cells = append(cells, fmtOverClaims(r))
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
	printPending(w, doc.Grades)
	printEvals(w, doc.Grades)
	fmt.Fprintf(w, "\nrubric %s; a version is graded from %d scored executions", doc.RubricVersion, doc.MinSamples)
	if all {
		fmt.Fprint(w, "; * marks the version in force; OVER-CLAIMS: runs whose answer claimed more than its tool calls showed (not part of the score)")
	}
	fmt.Fprintln(w)
}

// fmtOverClaims is "3/12 (25%)": a version's runs whose final answer
// claimed more than its calls showed, of its scored runs; "-" for none.
func fmtOverClaims(r *query.GradeRow) string {
	if r.OverClaims == 0 || r.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.0f%%)", r.OverClaims, r.N, 100*float64(r.OverClaims)/float64(r.N))
}

// printEvals puts each version's eval evidence beside its online grade:
// "deploy v3 81.2 A over 40 runs · evals 0.92 over 4 cases × 3 runs, +0.31
// against no skill".
func printEvals(w io.Writer, rows []query.GradeRow) {
	first := true
	for _, r := range rows {
		if r.Evals == nil {
			continue
		}
		if first {
			fmt.Fprintln(w)
			first = false
		}
		fmt.Fprintf(w, "%s v%d %s %s over %d runs · %s\n", r.Skill, r.Version, fmtScore(r.Aggregate), fmtGrade(r.Grade), r.N, r.Evals.Summary)
	}
}
