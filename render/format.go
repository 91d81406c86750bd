// Package render writes the text tables the CLI prints, where the daemon
// needs them too: `sepad grades` asks the API for its table already
// rendered (GET /v1/skills?format=text), so the daemon draws it once per
// store generation and a client prints it without decoding the JSON
// document (BENCHMARKS.md, the `sepad grades` row). The cells'
// formats are here so the CLI's other tables use the same ones.
package render

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

// Score is a score with two decimals (as %.2f), "-" for none.
func Score(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64) // as %.2f, without fmt's cost per cell
}

// ChangeVs is a row's Change with the version it is against: "+10.59
// vs v1" (just the number when the version is not known).
func ChangeVs(r *query.GradeRow) string {
	if r.Change != nil && r.ChangeFrom > 0 {
		return Change(r.Change) + " vs v" + strconv.Itoa(r.ChangeFrom)
	}
	return Change(r.Change)
}

// Change is a signed change with two decimals (as %+.2f), "-" for none.
func Change(p *float64) string {
	if p == nil {
		return "-"
	}
	s := strconv.FormatFloat(*p, 'f', 2, 64) // as %+.2f
	if s[0] != '-' && s[0] != '+' {
		s = "+" + s
	}
	return s
}

// Grade is a grade, "-" for none.
func Grade(g string) string { return OrDash(g) }

// OrDash is s, or "-" when it is empty.
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// ShortHash is the first 8 characters of a version hash.
func ShortHash(h string) string {
	if len(h) > 8 && h != "unknown" {
		return h[:8]
	}
	return h
}

// Version is "v3 01234567": a version's number and short hash (the hash
// alone when it has no number).
func Version(seq int, hash string) string {
	if seq == 0 {
		return ShortHash(hash)
	}
	return "v" + strconv.Itoa(seq) + " " + ShortHash(hash)
}

// ProjectLabels returns how to print each project: its last path
// element, or the whole path when two projects share that element.
func ProjectLabels(projects []string) map[string]string {
	byBase := map[string]map[string]bool{}
	for _, p := range projects {
		b := filepath.Base(p)
		if byBase[b] == nil {
			byBase[b] = map[string]bool{}
		}
		byBase[b][p] = true
	}
	out := map[string]string{}
	for _, p := range projects {
		switch {
		case p == "":
			out[p] = "-"
		case len(byBase[filepath.Base(p)]) > 1:
			out[p] = p
		default:
			out[p] = filepath.Base(p)
		}
	}
	return out
}

// Tokens is a version's mean tokens and cost per execution, with the
// change of its mean tokens from the older graded version beside them:
// "1.2k tok +18% $0.0042"; "-" when no transcript was read.
func Tokens(t *query.Tokens, change *float64) string {
	if t == nil {
		return "-"
	}
	s := Count(t.Mean) + " tok "
	if change != nil {
		s += fmt.Sprintf("%+.0f%% ", *change*100)
	}
	return s + TokensCost(t)
}

// Count is a count in thousands or millions past 1,000: "1.2k", "35k",
// "2.1M".
func Count(f float64) string {
	switch {
	case f >= 1e6:
		return fmt.Sprintf("%.1fM", f/1e6)
	case f >= 1e4:
		return fmt.Sprintf("%.0fk", f/1e3)
	case f >= 1e3:
		return fmt.Sprintf("%.1fk", f/1e3)
	}
	return fmt.Sprintf("%.0f", f)
}

// USD is a cost in dollars: cents past a dollar, else four decimals.
func USD(f float64) string {
	switch {
	case f == 0:
		return "$0"
	case f >= 1:
		return fmt.Sprintf("$%.2f", f)
	}
	return fmt.Sprintf("$%.4f", f)
}

// PriceUnknown is the one mark every view (grades, history, explain, the
// dashboard) shows for a cost sepad cannot price: a model its price table
// lacks. "$0" means a cost of zero, never an unknown one.
const PriceUnknown = "price unknown"

// Cost is the cost of runs of which unknown (of n) had a model without a
// price: PriceUnknown when none was priced, "≥ $x" (at least) when some
// were, else the dollars.
func Cost(usd float64, unknown, n int) string {
	switch {
	case unknown > 0 && (unknown >= n || usd == 0):
		return PriceUnknown
	case unknown > 0:
		return "≥ " + USD(usd)
	}
	return USD(usd)
}

// TokensCost is a version's mean cost per run ("–"-free: t is not nil).
func TokensCost(t *query.Tokens) string { return Cost(t.MeanCostUSD, t.CostUnknown, t.N) }

// Table is a tabwriter for a table of the CLI: columns two spaces apart,
// no line ending in spaces.
func Table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(TrimTrailing(w), 0, 0, 2, ' ', 0)
}

// projectLabels is ProjectLabels of the rows' projects.
func projectLabels[T any](rows []T, project func(*T) string) map[string]string {
	ps := make([]string, len(rows))
	for i := range rows {
		ps[i] = project(&rows[i])
	}
	return ProjectLabels(ps)
}

// TrimTrailing returns a writer that drops the spaces before each line
// end: tabwriter pads a row's empty last cell, and a line must not end
// in spaces. It holds a run of spaces until the next other byte.
func TrimTrailing(w io.Writer) io.Writer { return &trailTrim{w: w} }

type trailTrim struct {
	w      io.Writer
	spaces int
	out    []byte
}

func (t *trailTrim) Write(p []byte) (int, error) {
	t.out = t.out[:0]
	for _, c := range p {
		switch c {
		case ' ':
			t.spaces++
			continue
		case '\n':
			t.spaces = 0
		default:
			for ; t.spaces > 0; t.spaces-- {
				t.out = append(t.out, ' ')
			}
		}
		t.out = append(t.out, c)
	}
	if _, err := t.w.Write(t.out); err != nil {
		return 0, err
	}
	return len(p), nil
}
