package dashboard

import (
	"fmt"
	"html/template"
	"net/http"
	"sort"

	"github.com/sepad/sepad/query"
)

// TrendRuns is how many of a skill's newest executions the overview's
// trend shows.
const TrendRuns = 12

type overviewRow struct {
	query.GradeRow
	// StatusText is the status in words ("candidate, needs about 6 more
	// runs").
	StatusText string
	// Cost is the mean cost per run ("–" without transcripts).
	Cost string
	// Trend is the sparkline of the newest executions' scores, and
	// TrendText the same in words for screen readers and without SVG.
	Trend     template.HTML
	TrendText string
	// Notices counts the pending notices of the skill's project.
	Notices int
}

type overviewPage struct {
	base
	Rows      []overviewRow
	Projects  []string
	Project   string
	Sort      string
	Notices   []query.NoticeRow
	Undecided int
	Total     int
}

// Sort orders of the overview.
const (
	sortWorst = "worst"
	sortName  = "name"
)

func (d *Dashboard) overview(r *http.Request) (any, error) {
	p := &overviewPage{base: d.base(r, "Overview"), Project: r.URL.Query().Get("project"), Sort: r.URL.Query().Get("sort")}
	p.Nav = "overview"
	if p.Sort == "" {
		p.Sort = sortWorst
	}
	if p.Sort != sortWorst && p.Sort != sortName {
		return nil, fmt.Errorf("%w: sort=%q: want worst or name", query.ErrBadRequest, p.Sort)
	}
	g, trends, err := query.Overview(d.o.DB, TrendRuns)
	if err != nil {
		return nil, err
	}
	p.Total = len(g.Grades)
	seen := map[string]bool{}
	for _, row := range g.Grades {
		if !seen[row.Project] {
			seen[row.Project] = true
			p.Projects = append(p.Projects, row.Project)
		}
		if p.Project != "" && row.Project != p.Project {
			continue
		}
		p.Rows = append(p.Rows, overviewRow{GradeRow: row, StatusText: statusText(&row), Cost: costText(&row)})
	}
	if p.Project != "" && !seen[p.Project] {
		return nil, fmt.Errorf("no skill in project %q: %w", p.Project, query.ErrNotFound)
	}
	sort.Strings(p.Projects)
	for _, n := range query.PendingNotices(d.o.Home) {
		if p.Project == "" || n.Project == p.Project {
			p.Notices = append(p.Notices, n)
		}
	}
	for i := range p.Rows {
		row := &p.Rows[i]
		if row.Status == query.StatusCandidate {
			p.Undecided++
		}
		row.Trend, row.TrendText = sparkline(trends[row.SkillKey])
		for _, n := range p.Notices {
			if n.Project == row.Project {
				row.Notices++
			}
		}
	}
	if p.Sort == sortWorst {
		sort.SliceStable(p.Rows, func(a, b int) bool { return worse(&p.Rows[a].GradeRow, &p.Rows[b].GradeRow) })
	}
	return p, nil
}

// worse orders graded rows by aggregate, lowest first, then the ungraded
// (too few runs to judge) by aggregate.
func worse(a, b *query.GradeRow) bool {
	ga, gb := a.Grade != "" && a.Aggregate != nil, b.Grade != "" && b.Aggregate != nil
	switch {
	case ga != gb:
		return ga
	case a.Aggregate != nil && b.Aggregate != nil:
		return *a.Aggregate < *b.Aggregate
	}
	return a.Aggregate != nil && b.Aggregate == nil
}

// statusText says a version's status as `sepad grades` does.
func statusText(r *query.GradeRow) string {
	if r.Status == query.StatusCandidate && r.NeededMore != nil {
		if *r.NeededMore == 1 {
			return "candidate, needs about 1 more run"
		}
		return fmt.Sprintf("candidate, needs about %d more runs", *r.NeededMore)
	}
	if r.Status == "" {
		return "–"
	}
	return r.Status
}

func costText(r *query.GradeRow) string {
	if r.Tokens == nil {
		return "–"
	}
	return usd(r.Tokens.MeanCostUSD)
}
