package dashboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

// SkillRuns is how many of a skill's newest executions its page charts.
const SkillRuns = 500

type versionCol struct {
	query.GradeRow
	Marker     template.HTML
	StatusText string
	Signals    []signalMean
}

type skillPage struct {
	base
	Skill query.SkillRef
	// Covers lists, for CLAUDE.md (the session's base prompt), the
	// instruction files its version in force covers.
	Covers   []string
	Versions []versionCol
	// Signals names the signals of any version, in order, for the
	// side-by-side table.
	Signals    []string
	Chart      template.HTML
	Executions []query.ExecRow
	Total      int
	// Stored counts the runs still stored (sepad prune removes old ones).
	Stored    int
	Decisions []decisionRow
	// Diff between two versions (From, To as vN); nil with one version.
	Diff      *query.Diff
	DiffError string
	From, To  string
	// Strategies is `sepad strategies SKILL`: nil when the skill was
	// never evolved.
	Strategies []evolve.StrategyStat
	// Team is the skill's runs on every machine (team.postgres); nil
	// without a team database.
	Team *teamSkill
	// Activation is how the skill comes to run under the description in
	// force (the current version's row; nil for a session or an agent).
	Activation *query.ActivationRow
}

// decisionRow is one mutation engine decision, in words.
type decisionRow struct {
	Time  time.Time
	Skill string
	// Project names the skill's project when the list holds its name
	// in several projects ("shop"), else "".
	Project string
	Key     string
	Kind    string
	Outcome string
	Rule    string
	// Test is the decision's rule with its statistics (z, bounds), for
	// the details toggle: the page speaks in words by default.
	Test    string
	From    string
	To      string
	Applied bool
	Words   string
	Notice  string
	Warning string
	Cost    string
}

// payload is the part of a decision's payload (mutation.Record) shown.
type payload struct {
	Kind     string `json:"kind"`
	Skill    string `json:"skill"`
	Rule     string `json:"rule"`
	From     string `json:"from"`
	To       string `json:"to"`
	Applied  bool   `json:"applied"`
	Words    string `json:"words"`
	Notice   string `json:"notice"`
	Warning  string `json:"warning"`
	Decision *struct {
		Outcome string `json:"outcome"`
		Rule    string `json:"rule"`
	} `json:"decision"`
}

func decisionRows(ds []query.Decision, seqOf map[string]int) []decisionRow {
	out := make([]decisionRow, 0, len(ds))
	recs := make([]payload, len(ds))
	keys := map[string]map[string]bool{} // a name's skill keys
	var projects []string
	for i, d := range ds {
		if b, err := json.Marshal(d.Payload); err == nil {
			json.Unmarshal(b, &recs[i])
		}
		if keys[recs[i].Skill] == nil {
			keys[recs[i].Skill] = map[string]bool{}
		}
		keys[recs[i].Skill][d.SkillKey] = true
		projects = append(projects, d.Project)
	}
	labels := render.ProjectLabels(projects)
	for i, d := range ds {
		rec := recs[i]
		row := decisionRow{Time: d.Time, Skill: rec.Skill, Key: d.SkillKey, Kind: rec.Kind, Rule: rec.Rule, Applied: rec.Applied,
			Words: rec.Words, Notice: rec.Notice, Warning: rec.Warning, From: versionName(rec.From, seqOf), To: versionName(rec.To, seqOf)}
		row.Outcome = strings.ReplaceAll(rec.Kind, "_", " ")
		if rec.Decision != nil {
			row.Test = rec.Decision.Rule
			row.Outcome = map[string]string{"accept": "accepted", "reject": "rejected"}[rec.Decision.Outcome]
			if row.Outcome == "" {
				row.Outcome = rec.Decision.Outcome
			}
		} else if rec.Kind == "rollback" {
			row.Outcome = "rolled back"
		}
		if len(keys[rec.Skill]) > 1 && d.Project != "" {
			row.Project = labels[d.Project]
		}
		if d.Cost != nil {
			row.Cost = d.Cost.Words
		}
		out = append(out, row)
	}
	return out
}

// versionName is vN for a known hash, else its first 7 characters.
func versionName(hash string, seqOf map[string]int) string {
	if hash == "" {
		return ""
	}
	if n, ok := seqOf[hash]; ok && n > 0 {
		return fmt.Sprintf("v%d", n)
	}
	return hash[:min(7, len(hash))]
}

func (d *Dashboard) skill(r *http.Request) (any, error) {
	q := r.URL.Query()
	key := q.Get("key")
	if err := query.ValidateName(key); err != nil {
		return nil, err
	}
	h, err := query.SkillHistory(d.o.DB, query.HistoryRequest{Skill: key, Limit: SkillRuns})
	if err != nil {
		return nil, err
	}
	key = h.Skill.Key
	p := &skillPage{base: d.base(r, h.Skill.Display), Skill: h.Skill, Executions: h.Executions, Total: h.Total, Stored: h.Stored}
	means, err := signalMeans(d.o.DB, key, 50)
	if err != nil {
		return nil, err
	}
	seqOf := map[string]int{}
	seenSig := map[string]bool{}
	for _, v := range h.Versions {
		seqOf[v.Hash] = v.Version
		if v.Current {
			p.Covers = v.Files
		}
		col := versionCol{GradeRow: v, Marker: legendMarker(v.Version), StatusText: statusText(&v), Signals: means[v.Hash]}
		for _, m := range col.Signals {
			if !seenSig[m.Signal] {
				seenSig[m.Signal] = true
				p.Signals = append(p.Signals, m.Signal)
			}
		}
		p.Versions = append(p.Versions, col)
		if v.Current {
			p.Activation = v.Activation
		}
	}
	// Oldest version first, as they happened.
	sort.SliceStable(p.Versions, func(a, b int) bool { return p.Versions[a].Version < p.Versions[b].Version })
	ds, err := query.ListDecisions(d.o.DB, key, 100)
	if err != nil {
		return nil, err
	}
	p.Decisions = decisionRows(ds.Decisions, seqOf)
	var marks []chartMark
	for _, dr := range p.Decisions {
		marks = append(marks, chartMark{Time: dr.Time, Label: dr.Outcome, Words: dr.Words})
	}
	p.Chart = scoreChart(h.Executions, h.Versions, marks)
	p.Team = d.teamSkill(r, h.Skill, seqOf)
	stats, err := evolve.Stats(d.o.DB, key)
	if err != nil {
		return nil, err
	}
	for _, st := range stats {
		if st.Uses+st.Failed > 0 {
			p.Strategies = stats
			break
		}
	}
	// The diff: the two chosen versions, else the one before the
	// current and the current.
	p.From, p.To = q.Get("from"), q.Get("to")
	if len(p.Versions) >= 2 {
		if p.To == "" {
			p.To = fmt.Sprintf("v%d", p.Versions[len(p.Versions)-1].Version)
			for _, v := range p.Versions {
				if v.Current {
					p.To = fmt.Sprintf("v%d", v.Version)
				}
			}
		}
		if p.From == "" {
			p.From = fmt.Sprintf("v%d", p.Versions[0].Version)
			for i, v := range p.Versions {
				if fmt.Sprintf("v%d", v.Version) == p.To && i > 0 {
					p.From = fmt.Sprintf("v%d", p.Versions[i-1].Version)
				}
			}
		}
		diff, err := query.GetDiff(d.o.DB, key, p.From, p.To)
		switch {
		case errors.Is(err, query.ErrNotFound), errors.Is(err, query.ErrBadRequest):
			p.DiffError = err.Error() // a version whose text sepad never saw, or a bad choice
		case err != nil:
			return nil, err
		}
		p.Diff = diff
	}
	return p, nil
}
