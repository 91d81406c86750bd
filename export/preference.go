package export

import (
	"fmt"
	"io"
	"sort"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

// PreferenceRow is one chosen/rejected pair of a skill: a success and a
// failure whose labels are both preference-eligible (reward.Derive).
type PreferenceRow struct {
	Schema   int    `json:"schema"`
	Skill    string `json:"skill"`
	SkillKey string `json:"skill_key"`
	// Prompt is the chosen execution's instruction (as sft's); each side
	// keeps its own too, since two runs of a skill rarely share a prompt.
	Prompt          string  `json:"prompt"`
	Chosen          string  `json:"chosen"`
	Rejected        string  `json:"rejected"`
	ChosenID        string  `json:"chosen_id"`
	RejectedID      string  `json:"rejected_id"`
	ChosenPrompt    string  `json:"chosen_prompt"`
	RejectedPrompt  string  `json:"rejected_prompt"`
	ChosenVersion   string  `json:"chosen_version"`
	RejectedVersion string  `json:"rejected_version"`
	ChosenScore     float64 `json:"chosen_score"`
	RejectedScore   float64 `json:"rejected_score"`
}

// writePreference pairs, per skill and in commit order, the n-th eligible
// success with the n-th eligible failure (the unpaired rest is left
// out). The first pass keeps only the eligible executions' IDs (labelled
// ones, few); the pairs are then read one at a time.
func writePreference(w io.Writer, db *store.DB, o Options) (Stats, error) {
	var st Stats
	type sides struct{ chosen, rejected []string }
	per := map[string]*sides{}
	err := db.Each(func(s *record.Scored, l *reward.Label) error {
		st.Read++
		if !o.keep(s) {
			return nil
		}
		st.Kept++
		if l == nil {
			return nil
		}
		st.Labelled++
		if !s.Exec.HasOutput || s.Exec.Output == "" || !reward.Derive(*l).ExportableForPreference {
			return nil
		}
		p := per[s.SkillKey]
		if p == nil {
			p = &sides{}
			per[s.SkillKey] = p
		}
		if l.Outcome == reward.Success {
			p.chosen = append(p.chosen, s.Exec.ID)
		} else {
			p.rejected = append(p.rejected, s.Exec.ID)
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	keys := make([]string, 0, len(per))
	for k := range per {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	enc := encoder(w)
	for _, k := range keys {
		p := per[k]
		for i := 0; i < len(p.chosen) && i < len(p.rejected); i++ {
			c, err := exact(db, p.chosen[i])
			if err != nil {
				return st, err
			}
			r, err := exact(db, p.rejected[i])
			if err != nil {
				return st, err
			}
			row := PreferenceRow{Schema: SchemaVersion, Skill: c.s.Exec.Skill, SkillKey: k, Prompt: instruction(&c.s.Exec),
				Chosen: c.s.Exec.Output, Rejected: r.s.Exec.Output, ChosenID: c.s.Exec.ID, RejectedID: r.s.Exec.ID,
				ChosenPrompt: instruction(&c.s.Exec), RejectedPrompt: instruction(&r.s.Exec), ChosenVersion: c.s.Version,
				RejectedVersion: r.s.Version, ChosenScore: c.l.Score, RejectedScore: r.l.Score}
			if err := enc.Encode(row); err != nil {
				return st, err
			}
			st.Written++
		}
	}
	return st, nil
}

type labelled struct {
	s *record.Scored
	l reward.Label
}

// exact reads an execution and its newest label.
func exact(db *store.DB, id string) (labelled, error) {
	s, err := db.Execution(id)
	if err != nil {
		return labelled{}, fmt.Errorf("export: read %s: %w", id, err)
	}
	ls, err := db.Labels(s.Exec.ID)
	if err != nil || len(ls) == 0 {
		return labelled{}, fmt.Errorf("export: labels of %s: %v", id, err)
	}
	return labelled{s: s, l: ls[0]}, nil
}
