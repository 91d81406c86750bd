package query

import (
	"encoding/json"

	"github.com/sepad/sepad/store"
)

// Compared is the one comparison a version's row shows (issue 36 item
// 2): its aggregate minus the aggregate of the version it is compared
// with, named. That version is the baseline of the version's latest
// accept or reject decision (Decided), the one `sepad decisions` names;
// for a version never decided, the one Change is against.
type Compared struct {
	// Version is the version compared with (its sequence number).
	Version int     `json:"version"`
	Change  float64 `json:"change"`
	Decided bool    `json:"decided"`
}

// comparedDecisions bounds the decision records read for a skill's
// comparisons.
const comparedDecisions = 500

// AttachCompared fills each graded row's Compared (rows: one skill's
// versions, newest first, as versionRows gives them).
func AttachCompared(db *store.DB, key string, rows []GradeRow) error {
	ds, err := db.Decisions(key, comparedDecisions)
	if err != nil {
		return err
	}
	baseOf := map[string]string{} // candidate hash → its latest decision's baseline
	for _, d := range ds {        // newest first
		var r struct {
			Decision *struct {
				Outcome   string                `json:"outcome"`
				Baseline  struct{ Hash string } `json:"baseline"`
				Candidate struct{ Hash string } `json:"candidate"`
			} `json:"decision"`
		}
		if json.Unmarshal(d.Payload, &r) != nil || r.Decision == nil || r.Decision.Outcome != "accept" && r.Decision.Outcome != "reject" {
			continue
		}
		b, c := r.Decision.Baseline.Hash, r.Decision.Candidate.Hash
		if _, seen := baseOf[c]; !seen && b != "" && c != "" && b != c {
			baseOf[c] = b
		}
	}
	byHash := map[string]*GradeRow{}
	for i := range rows {
		byHash[rows[i].Hash] = &rows[i]
	}
	for i := range rows {
		r := &rows[i]
		if r.Aggregate == nil || r.Grade == "" {
			continue
		}
		if b := byHash[baseOf[r.Hash]]; b != nil && b.Aggregate != nil {
			r.Compared = &Compared{Version: b.Version, Change: round4(*r.Aggregate - *b.Aggregate), Decided: true}
			continue
		}
		if r.Change != nil && r.ChangeFrom > 0 {
			r.Compared = &Compared{Version: r.ChangeFrom, Change: *r.Change}
		}
	}
	return nil
}
