package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/render/words"
)

// Times are local and absolute, so the same data always prints the same
// table.

// Time is a time in local time to the second, "-" for the zero time.
func Time(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// TimePtr is Time of *t, "-" for none.
func TimePtr(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return Time(*t)
}

// DurationMS is a duration given in milliseconds: "850ms", "2.5s",
// "1m30s"; "-" for none.
func DurationMS(p *int64) string {
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

// Bytes is a size in B, KiB, MiB or GiB; "-" for a negative one.
func Bytes(n int64) string {
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

// Clip shortens s to n runes on one line.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// ClipQuoted shows raw text as a Go-quoted string (control characters
// and tabs visible), cut to about n characters.
func ClipQuoted(s string, n int) string {
	q := strconv.Quote(s)
	r := []rune(q)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return q
}

// Plural is "1 file", "2 files".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// sparkBlocks are the sparkline's levels, lowest first.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws scores (0-100, on an absolute scale, oldest first) as
// one block each; nil (unscored) is a dot, and a bar marks where the
// version changes (versions[i] != versions[i-1]).
func Sparkline(scores []*float64, versions []int) string {
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

// Usage is one execution's tokens by kind, models and cost.
func Usage(u *execution.Usage, reason string) string {
	if u == nil {
		if reason == "" {
			return "-"
		}
		return "- (" + reason + ")"
	}
	cost := ExecCost(u)
	if !u.CostKnown {
		cost += " (a model has no price)"
	}
	return fmt.Sprintf("%s tokens: %d input, %d output, %d cache read, %d cache write (cache hit %.0f%%); %d messages, %s; %s",
		Count(float64(u.Tokens())), u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens,
		u.CacheHitRate()*100, u.Messages, OrDash(strings.Join(u.Models, ", ")), cost)
}

// ExecCost is one execution's cost: PriceUnknown when a model it used
// has no price, as every view says it.
func ExecCost(u *execution.Usage) string {
	unknown := 0
	if !u.CostKnown {
		unknown = 1
	}
	return Cost(u.CostUSD(), unknown, 1)
}

// SignalName is a signal's name in a table a person reads: "tool success
// rate", "error-free" (its value is one minus the error rate: every row
// reads higher is better), "structure"; the ids stay in --json.
func SignalName(id string) string { return words.SignalLabel(id) }
