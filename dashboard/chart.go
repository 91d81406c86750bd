package dashboard

import (
	"fmt"
	"html/template"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/sepad/sepad/query"
)

// Charts are SVG drawn here: numbers computed on the server, every text
// escaped. Versions differ by colour and by marker shape, and every chart
// has a text equivalent, so colour never carries meaning alone.

// palette is Okabe and Ito's colour-blind-safe set.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#7F7F00", "#000000"}

// shapes are the markers, one per version in turn.
var shapes = []string{"circle", "square", "triangle", "diamond"}

func versionColour(v int) string { return palette[(max(v, 1)-1)%len(palette)] }
func versionShape(v int) string  { return shapes[(max(v, 1)-1)%len(shapes)] }

// marker draws a shape centred on x, y.
func marker(b *strings.Builder, shape string, x, y float64, colour string) {
	switch shape {
	case "square":
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="7" height="7" fill="%s"/>`, x-3.5, y-3.5, colour)
	case "triangle":
		fmt.Fprintf(b, `<path d="M%.1f %.1fL%.1f %.1fL%.1f %.1fZ" fill="%s"/>`, x, y-4.5, x+4.5, y+3.5, x-4.5, y+3.5, colour)
	case "diamond":
		fmt.Fprintf(b, `<path d="M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ" fill="%s"/>`, x, y-4.5, x+4.5, y, x, y+4.5, x-4.5, y, colour)
	default:
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3.8" fill="%s"/>`, x, y, colour)
	}
}

// sparkline draws scores (oldest first, 0-100) as a small line, with the
// same in words.
func sparkline(pts []query.TrendPoint) (template.HTML, string) {
	var scores []float64
	for _, p := range pts {
		if p.Score != nil {
			scores = append(scores, *p.Score)
		}
	}
	if len(scores) == 0 {
		return "", "no scored runs"
	}
	const w, h = 120.0, 28.0
	var b strings.Builder
	words := fmt.Sprintf("last %d runs: %.0f to %.0f, latest %.0f", len(scores), minOf(scores), maxOf(scores), scores[len(scores)-1])
	fmt.Fprintf(&b, `<svg class="spark" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" role="img" aria-label="%s">`, w, h, w, h, template.HTMLEscapeString(words))
	fmt.Fprintf(&b, `<line x1="0" x2="%.0f" y1="%.1f" y2="%.1f" class="spark-mid"/>`, w, h/2, h/2)
	b.WriteString(`<polyline fill="none" stroke="currentColor" stroke-width="1.5" points="`)
	step := w - 4
	if len(scores) > 1 {
		step = (w - 4) / float64(len(scores)-1)
	}
	for i, s := range scores {
		fmt.Fprintf(&b, "%.1f,%.1f ", 2+float64(i)*step, 2+(h-4)*(1-s/100))
	}
	b.WriteString(`"/>`)
	last := scores[len(scores)-1]
	fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="currentColor"/></svg>`, 2+float64(len(scores)-1)*step, 2+(h-4)*(1-last/100))
	return template.HTML(b.String()), words
}

func minOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

func maxOf(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// chartMark is a decision on the time axis.
type chartMark struct {
	Time  time.Time
	Label string
	Words string
}

// scoreChart draws a skill's score over time: one point per execution,
// coloured and shaped by version and linking to its page; each version's
// aggregate as a line over its runs; version changes and decisions marked
// on the time axis.
func scoreChart(execs []query.ExecRow, versions []query.GradeRow, marks []chartMark) template.HTML {
	var pts []query.ExecRow
	for _, x := range execs {
		if x.Score != nil {
			pts = append(pts, x)
		}
	}
	if len(pts) == 0 {
		return ""
	}
	sort.SliceStable(pts, func(a, b int) bool { return pts[a].Time.Before(pts[b].Time) })
	const w, h, left, right, top, bottom = 860.0, 292.0, 44.0, 16.0, 16.0, 56.0
	t0, t1 := pts[0].Time, pts[len(pts)-1].Time
	for _, m := range marks {
		if m.Time.Before(t0) && t0.Sub(m.Time) < t1.Sub(t0)/4+time.Minute {
			t0 = m.Time
		}
		if m.Time.After(t1) && m.Time.Sub(t1) < t1.Sub(t0)/4+time.Minute {
			t1 = m.Time
		}
	}
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Second
	}
	x := func(t time.Time) float64 { return left + (w-left-right)*float64(t.Sub(t0))/float64(span) }
	y := func(s float64) float64 { return top + (h-top-bottom)*(1-s/100) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="chart" viewBox="0 0 %.0f %.0f" role="img" aria-labelledby="chart-title chart-desc">`, w, h)
	fmt.Fprintf(&b, `<title id="chart-title">Score of every run over time</title><desc id="chart-desc">%d scored runs from %s to %s; the table of runs below has the same data.</desc>`,
		len(pts), t0.UTC().Format("2006-01-02 15:04"), t1.UTC().Format("2006-01-02 15:04"))
	for _, s := range []float64{0, 25, 50, 75, 100} {
		fmt.Fprintf(&b, `<line class="grid" x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f"/><text class="axis" x="%.0f" y="%.1f" text-anchor="end">%.0f</text>`,
			left, w-right, y(s), y(s), left-6, y(s)+4, s)
	}
	fmt.Fprintf(&b, `<text class="axis" x="%.0f" y="%.0f">%s</text><text class="axis" x="%.0f" y="%.0f" text-anchor="end">%s</text>`,
		left, h-4, t0.UTC().Format("Jan 2 15:04"), w-right, h-4, t1.UTC().Format("Jan 2 15:04 UTC"))
	// Version changes: the first run of each version after the first.
	first := map[int]time.Time{}
	lastT := map[int]time.Time{}
	for _, p := range pts {
		if _, ok := first[p.Version]; !ok {
			first[p.Version] = p.Time
		}
		lastT[p.Version] = p.Time
	}
	seen := map[int]time.Time{}
	for _, v := range versions {
		if v.FirstSeen != nil {
			seen[v.Version] = *v.FirstSeen
		}
	}
	for i, p := range pts {
		if i > 0 && pts[i-1].Version != p.Version {
			// Where sepad first saw the version, when that lies
			// between the two runs; else halfway.
			xx := (x(pts[i-1].Time) + x(p.Time)) / 2
			if f, ok := seen[p.Version]; ok && f.After(pts[i-1].Time) && !f.After(p.Time) {
				xx = x(f)
			}
			fmt.Fprintf(&b, `<g class="vchange"><line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"/><text x="%.1f" y="%.0f">v%d</text></g>`,
				xx, xx, top, h-bottom, xx+3, top+10, p.Version)
		}
	}
	// Aggregates per version, over the span of its runs.
	for _, v := range versions {
		f, ok := first[v.Version]
		if !ok || v.Aggregate == nil {
			continue
		}
		fmt.Fprintf(&b, `<line class="agg" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"><title>v%d aggregate %.1f</title></line>`,
			x(f), max(x(lastT[v.Version]), x(f)+4), y(*v.Aggregate), y(*v.Aggregate), versionColour(v.Version), v.Version, *v.Aggregate)
	}
	// Decisions on the time axis, oldest first; labels of decisions close
	// together are stepped down so they do not overlap.
	sort.SliceStable(marks, func(a, b int) bool { return marks[a].Time.Before(marks[b].Time) })
	lastX, level := -1e9, 0
	for _, m := range marks {
		if m.Time.Before(t0) || m.Time.After(t1) {
			continue
		}
		xx := x(m.Time)
		if xx-lastX < 70 {
			level = (level + 1) % 3
		} else {
			level = 0
		}
		lastX = xx
		anchor := "middle"
		if xx > w-right-40 {
			anchor = "end"
		}
		fmt.Fprintf(&b, `<g class="decision"><line x1="%.1f" x2="%.1f" y1="%.0f" y2="%.0f"/><path d="M%.1f %.0fl5 8h-10z"/><text x="%.1f" y="%.0f" text-anchor="%s">%s</text><title>%s</title></g>`,
			xx, xx, top, h-bottom, xx, h-bottom, xx, h-bottom+20+float64(level)*11, anchor, template.HTMLEscapeString(m.Label), template.HTMLEscapeString(m.Words))
	}
	for _, p := range pts {
		fmt.Fprintf(&b, `<a href="execution/%s"><title>v%d · %.1f (%s) · %s</title>`, template.HTMLEscapeString(url.PathEscape(p.ID)), p.Version, *p.Score,
			template.HTMLEscapeString(p.Grade), p.Time.UTC().Format("2006-01-02 15:04:05"))
		marker(&b, versionShape(p.Version), x(p.Time), y(*p.Score), versionColour(p.Version))
		b.WriteString(`</a>`)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// legendMarker is a version's marker alone, for the legend and tables.
func legendMarker(v int) template.HTML {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="marker" width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">`)
	marker(&b, versionShape(v), 6, 6.5, versionColour(v))
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}
