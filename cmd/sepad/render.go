package main

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sepad/sepad/render"
)

// Shared formatting of the query commands' tables. Times are local and
// absolute, so the same data always prints the same table. The cells the
// grades table uses live in package render, which the daemon uses to
// serve that table pre-rendered (GET /v1/skills?format=text).
var (
	fmtScore      = render.Score
	fmtChange     = render.Change
	fmtGrade      = render.Grade
	fmtVersion    = render.Version
	fmtStatus     = render.Status
	fmtTokens     = render.Tokens
	fmtCount      = render.Count
	orDash        = render.OrDash
	projectLabels = render.ProjectLabels
	trimTrailing  = render.TrimTrailing
	printPending  = render.Pending
	printEvals    = render.Evals
)

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func fmtTimePtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return fmtTime(*t)
}

func fmtDurationMS(p *int64) string {
	if p == nil {
		return "-"
	}
	d := time.Duration(*p) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", *p)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func fmtBytes(n int64) string {
	switch {
	case n < 0:
		return "-"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// clip shortens s to n runes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// sparkBlocks are the sparkline's levels, lowest first.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws scores (0-100, on an absolute scale, oldest first) as
// one block each; nil (unscored) is a dot, and a bar marks where the
// version changes (versions[i] != versions[i-1]).
func sparkline(scores []*float64, versions []int) string {
	var b strings.Builder
	for i, s := range scores {
		if i > 0 && versions[i] != versions[i-1] {
			b.WriteRune('|')
		}
		if s == nil {
			b.WriteRune('·')
			continue
		}
		lv := int(math.Floor(*s / 100 * float64(len(sparkBlocks))))
		b.WriteRune(sparkBlocks[min(max(lv, 0), len(sparkBlocks)-1)])
	}
	return b.String()
}

// pathArg escapes a skill argument as one URL path segment.
func pathArg(s string) string { return url.PathEscape(s) }
