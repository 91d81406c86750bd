package main

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
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
	var doc query.Grades
	body, err := fetch(qf, path, &doc)
	if err != nil {
		if g != nil && isNotFound(err) {
			return &exitError{code: exitNothingToGate, err: fmt.Errorf("nothing to gate: %w", err)}
		}
		return err
	}
	if qf.json {
		err = printJSON(stdout, body)
	} else {
		printGrades(stdout, &doc, *all)
	}
	if err != nil || g == nil {
		return err
	}
	return checkGate(g, &doc, len(pos) == 1)
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
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	over := ""
	if all {
		over = "OVER-CLAIMS\t" // per version: runs whose answer claimed more than the calls showed
	}
	fmt.Fprintln(tw, "SKILL\tPROJECT\tVERSION\tSTATUS\tN\tAGGREGATE\tGRADE\tCHANGE\tLAST\tTOKENS/RUN\t"+over+"ADVICE")
	for _, r := range doc.Grades {
		ver := fmtVersion(r.Version, r.Hash)
		if all && r.Current {
			ver += " *"
		}
		oc := ""
		if all {
			oc = fmtOverClaims(&r) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s%s\n", r.Skill, pl[r.Project], ver, fmtStatus(&r), r.N,
			fmtScore(r.Aggregate), fmtGrade(r.Grade), fmtChange(r.Change), fmtScore(r.LastScore), fmtTokens(r.Tokens, r.TokenChange), oc, r.Advice)
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
