package query

import (
	"time"

	"github.com/sepad/sepad/evals"
)

// EvalRow is a version's latest Claude Code eval suite run, shown beside
// its online grade and never mixed into it (docs/claude-code.md, "Evals").
type EvalRow struct {
	Score     float64   `json:"score"`
	PassRate  float64   `json:"pass_rate"`
	Delta     *float64  `json:"delta,omitempty"`
	Cases     int       `json:"cases"`
	Runs      int       `json:"runs"`
	CostUSD   float64   `json:"cost_usd"`
	Threshold float64   `json:"threshold"`
	Passed    bool      `json:"passed"`
	Failing   []string  `json:"failing,omitempty"`
	At        time.Time `json:"at"`
	Source    string    `json:"source"`
	// Summary words it: "evals 0.92 over 4 cases × 3 runs, +0.31 against
	// no skill".
	Summary string `json:"summary"`
	// Recorded counts the suite runs recorded for the version.
	Recorded int `json:"recorded"`
}

// AttachEvals sets Evals on each row that has evidence in the state
// directory home.
func AttachEvals(home string, rows []GradeRow) error {
	if home == "" || len(rows) == 0 {
		return nil
	}
	all, err := evals.Load(home)
	if err != nil || len(all) == 0 {
		return err
	}
	count := map[[2]string]int{}
	for _, e := range all {
		count[[2]string{e.SkillKey, e.Version}]++
	}
	latest := evals.Latest(all)
	for i := range rows {
		k := [2]string{rows[i].SkillKey, rows[i].Hash}
		e := latest[k]
		if e == nil {
			continue
		}
		rows[i].Evals = &EvalRow{Score: e.Score, PassRate: e.PassRate, Delta: e.Delta, Cases: len(e.Cases), Runs: e.Runs,
			CostUSD: e.CostUSD, Threshold: e.Threshold, Passed: e.Passed(), Failing: e.Failing(), At: e.At, Source: e.Source,
			Summary: e.Summary(), Recorded: count[k]}
	}
	return nil
}
