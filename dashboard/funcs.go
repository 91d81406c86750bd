package dashboard

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

// funcs are the templates' formatting helpers.
var funcs = template.FuncMap{
	"score": func(f *float64) string {
		if f == nil {
			return "–"
		}
		return fmt.Sprintf("%.1f", *f)
	},
	"num": func(f float64) string { return fmt.Sprintf("%.2f", f) },
	// signal names a signal as explain does ("tool success rate",
	// "error-free"); the id stays in data-signal.
	"signal": render.SignalName,
	"pct":    func(f float64) string { return fmt.Sprintf("%.0f%%", f*100) },
	"signed": func(f *float64) string {
		if f == nil {
			return "–"
		}
		return fmt.Sprintf("%+.1f", *f)
	},
	// plural is "1 run", "3 runs".
	"plural": render.Plural,
	// strategyCost marks a strategy's cost as the other costs: "–" never
	// tried, "price unknown" when no mutator reported one.
	"strategyCost": func(s evolve.StrategyStat) string {
		if s.Uses+s.Failed == 0 {
			return "–"
		}
		return render.StrategyCost(&s)
	},
	// display is the name people read for a skill ("CLAUDE.md" for
	// "_session").
	"display":    query.DisplayName,
	"displayKey": query.DisplayKey,
	// compared is a version's one comparison, as sepad versions prints
	// it ("+10.59 vs v1": against its decision's baseline).
	"compared": func(r query.GradeRow) string { return render.Compared(&r) },
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "–"
		}
		return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
	},
	"whenp": func(t *time.Time) string {
		if t == nil || t.IsZero() {
			return "–"
		}
		return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
	},
	"iso": func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"ms": func(p *int64) string {
		if p == nil {
			return "–"
		}
		if *p >= 10_000 {
			return fmt.Sprintf("%.0f s", float64(*p)/1000)
		}
		return fmt.Sprintf("%d ms", *p)
	},
	"grade": func(g string) string {
		if g == "" {
			return "–"
		}
		return g
	},
	// gradeClass names a grade's CSS class (its colour; the letter is
	// always shown too).
	"gradeClass": func(g string) string {
		if g == "" {
			return "grade-none"
		}
		return "grade-" + strings.ToLower(strings.TrimRight(g, "+-"))
	},
	"short": func(h string) string { return h[:min(7, len(h))] },
	// tokensCost is a version's cost per run, with the one mark for a
	// price sepad does not know (render.PriceUnknown), as the CLI's.
	"tokensCost": render.TokensCost,
	"modelMix":   render.ModelMix,
}
