package main

import (
	"fmt"
	"io"
	"math"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Shared formatting of the query commands' tables. Times are local and
// absolute, so the same data always prints the same table.

func fmtScore(p *float64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatFloat(*p, 'f', 2, 64) // as %.2f, without fmt's cost per cell
}

func fmtChange(p *float64) string {
	if p == nil {
		return "-"
	}
	s := strconv.FormatFloat(*p, 'f', 2, 64) // as %+.2f
	if s[0] != '-' && s[0] != '+' {
		s = "+" + s
	}
	return s
}

func fmtGrade(g string) string {
	if g == "" {
		return "-"
	}
	return g
}

// shortHash is the first 8 characters of a version hash.
func shortHash(h string) string {
	if len(h) > 8 && h != "unknown" {
		return h[:8]
	}
	return h
}

func fmtVersion(seq int, hash string) string {
	if seq == 0 {
		return shortHash(hash)
	}
	return "v" + strconv.Itoa(seq) + " " + shortHash(hash)
}

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

// projectLabels returns how to print each project: its last path element,
// or the whole path when two projects share that element.
func projectLabels(projects []string) map[string]string {
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

// trimTrailing returns a writer that drops the spaces before each line
// end: tabwriter pads a row's empty last cell, and a line must not end
// in spaces. It holds a run of spaces until the next other byte.
func trimTrailing(w io.Writer) io.Writer { return &trailTrim{w: w} }

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
