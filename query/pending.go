package query

import (
	"encoding/json"
	"sort"

	"github.com/sepad/sepad/store"
)

// PendingRow is an undecided candidate: how many more runs the engine
// estimates it needs, and its last look in words.
type PendingRow struct {
	SkillKey    string `json:"skill_key"`
	Skill       string `json:"skill"`
	Project     string `json:"project"`
	Hash        string `json:"hash"`
	NeededMore  int    `json:"needed_more"`
	Explanation string `json:"explanation"`
}

// pendingState is the part of the mutation engine's state (SkillState)
// the views read.
type pendingState struct {
	Candidate string            `json:"candidate"`
	Status    map[string]string `json:"status"`
	Pending   *struct {
		Candidate   string `json:"candidate"`
		NeededMore  int    `json:"needed_more"`
		Explanation string `json:"explanation"`
	} `json:"pending"`
}

// pendingOf returns the undecided candidate of a skill state, if any.
func pendingOf(state []byte) (hash string, needed int, words string, ok bool) {
	var st pendingState
	if len(state) == 0 || json.Unmarshal(state, &st) != nil || st.Pending == nil {
		return "", 0, "", false
	}
	p := st.Pending
	if p.Candidate == "" || p.Candidate != st.Candidate || st.Status[p.Candidate] != StatusCandidate {
		return "", 0, "", false // decided, superseded or rolled back since
	}
	return p.Candidate, p.NeededMore, p.Explanation, true
}

// markPending adds to the candidate's row the runs it still needs.
func markPending(rows []GradeRow, state []byte) {
	h, n, words, ok := pendingOf(state)
	if !ok {
		return
	}
	for i := range rows {
		if rows[i].Hash == h && rows[i].Status == StatusCandidate {
			rows[i].NeededMore, rows[i].Pending = ptr(n), words
		}
	}
}

// PendingCandidates lists every skill's undecided candidate.
func PendingCandidates(db *store.DB) ([]PendingRow, error) {
	out := []PendingRow{}
	if db == nil {
		return out, nil
	}
	states, err := db.SkillStates()
	if err != nil || len(states) == 0 {
		return out, err
	}
	keys := make([]string, 0, len(states))
	for k, st := range states {
		if _, _, _, ok := pendingOf(st); ok {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return out, nil
	}
	sks, err := db.SkillsByKey(keys)
	if err != nil {
		return nil, err
	}
	for _, sk := range sks {
		h, n, words, _ := pendingOf(states[sk.Key])
		out = append(out, PendingRow{SkillKey: sk.Key, Skill: sk.Name, Project: sk.Project, Hash: h, NeededMore: n, Explanation: words})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Skill+out[i].Project < out[j].Skill+out[j].Project })
	return out, nil
}
