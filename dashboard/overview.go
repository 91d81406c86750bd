package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"sort"

	"github.com/sepad/sepad/render"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/status"
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
	// HTML is the row drawn (the template "row").
	HTML template.HTML
}

type overviewPage struct {
	base
	Rows      []*overviewRow
	Projects  []string
	Project   string
	Sort      string
	Notices   []status.NoticeRow
	Undecided int
	Total     int
}

// drawnRow is a row of the overview drawn, kept until the skill's row
// changes (query.OverviewRow.Mark) or its project's notices do.
type drawnRow struct {
	mark    uint64
	notices int
	row     *overviewRow
}

// Sort orders of the overview.
const (
	sortWorst = "worst"
	sortName  = "name"
)

// overview lists every skill. Its rows are drawn once per change of the
// skill (query.Overview reads again only the skills a write touched, and
// the row drawn from it is kept here), so the overview of a thousand
// skills after a write draws one row and copies the rest
// (BenchmarkDashboardBigStore).
func (d *Dashboard) overview(r *http.Request) (any, error) {
	p := &overviewPage{base: d.base(r, "Overview"), Project: r.URL.Query().Get("project"), Sort: r.URL.Query().Get("sort")}
	p.Nav = "overview"
	if p.Sort == "" {
		p.Sort = sortWorst
	}
	if p.Sort != sortWorst && p.Sort != sortName {
		return nil, fmt.Errorf("%w: sort=%q: want worst or name", query.ErrBadRequest, p.Sort)
	}
	rows, err := query.Overview(d.o.DB, TrendRuns)
	if err != nil {
		return nil, err
	}
	p.Total = len(rows)
	seen := map[string]bool{}
	for _, row := range rows {
		if !seen[row.Project] {
			seen[row.Project] = true
			p.Projects = append(p.Projects, row.Project)
		}
	}
	if p.Project != "" && !seen[p.Project] {
		return nil, fmt.Errorf("no skill in project %q: %w", p.Project, query.ErrNotFound)
	}
	sort.Strings(p.Projects)
	notices := map[string]int{}
	for _, n := range status.PendingNotices(d.o.Home) {
		if p.Project == "" || n.Project == p.Project {
			p.Notices = append(p.Notices, n)
			notices[n.Project]++
		}
	}
	d.rowsMu.Lock()
	defer d.rowsMu.Unlock()
	if d.rows == nil || len(d.rows) > 2*len(rows)+64 {
		d.rows = make(map[string]drawnRow, len(rows)) // skills forgotten: start over
	}
	for i := range rows {
		row := &rows[i]
		if p.Project != "" && row.Project != p.Project {
			continue
		}
		if row.Status == query.StatusCandidate {
			p.Undecided++
		}
		dr, ok := d.rows[row.SkillKey]
		if !ok || dr.mark != row.Mark || dr.notices != notices[row.Project] {
			o := &overviewRow{GradeRow: row.GradeRow, StatusText: statusText(&row.GradeRow), Cost: costText(&row.GradeRow), Notices: notices[row.Project]}
			o.Trend, o.TrendText = sparkline(row.Trend)
			o.HTML = d.renderRow(o)
			dr = drawnRow{mark: row.Mark, notices: o.Notices, row: o}
			d.rows[row.SkillKey] = dr
		}
		p.Rows = append(p.Rows, dr.row)
	}
	if p.Sort == sortWorst {
		sort.SliceStable(p.Rows, func(a, b int) bool { return worse(&p.Rows[a].GradeRow, &p.Rows[b].GradeRow) })
	}
	return p, nil
}

// renderRow draws one row of the overview's table.
func (d *Dashboard) renderRow(o *overviewRow) template.HTML {
	var b bytes.Buffer
	if err := parsePages()["overview"].ExecuteTemplate(&b, "row", o); err != nil {
		d.o.Logger.Error("dashboard template failed", "page", "overview row", "err", err)
		return template.HTML(`<tr><td colspan="10">This row could not be drawn: ` + template.HTMLEscapeString(err.Error()) + `</td></tr>`)
	}
	return template.HTML(b.String())
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
	return render.TokensCost(r.Tokens)
}
