package query

import (
	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/record"
)

// ActivationRow is how a skill version comes to run (docs/activation.md):
// the counts of its description version (the versions in a row with the
// same description), this version's own, and the description edit judged
// on activation. Never part of the score.
type ActivationRow struct {
	// Description names the description version ("none": the file has
	// no description; "": its content is not known); Since is the first
	// version number that had it.
	Description string `json:"description"`
	Since       int    `json:"since"`
	// Counts are the description version's; Version this version's alone.
	Counts  activation.Counts `json:"counts"`
	Version activation.Counts `json:"version"`
	// Rate is the model's share of the chances (null without one).
	Rate  *float64 `json:"rate"`
	Words string   `json:"words"`
	// Comparison judges the description against the one before it, on
	// activation alone: reported beside the fitness decision.
	Comparison *activation.Comparison `json:"comparison,omitempty"`
}

// activationRows returns each version's ActivationRow (vs oldest first),
// nil for a kind that is not a skill (a session's base prompt, an agent:
// nothing invokes them by name).
func activationRows(sk *record.Skill) []*ActivationRow {
	if sk.Kind != "skill" {
		return nil
	}
	vs := sk.Versions
	in := make([]activation.Version, len(vs))
	for i := range vs {
		in[i] = activation.Version{Seq: vs[i].Seq, Hash: vs[i].Hash, Description: vs[i].Description}
		if vs[i].Activation != nil {
			in[i].Counts = *vs[i].Activation
		}
	}
	groups := activation.Groups(in)
	rows := make(map[string]*ActivationRow, len(groups))
	o := decide.DefaultOptions()
	for gi, g := range groups {
		r := &ActivationRow{Description: g.Description, Since: g.From, Counts: g.Counts, Words: g.Words()}
		if p, ok := g.Rate(); ok {
			r.Rate = ptr(round4(p))
		}
		if gi > 0 {
			c := activation.Compare(sk.Key, groups[gi-1], g, o)
			r.Comparison = &c
		}
		for _, h := range g.Hashes {
			rows[h] = r
		}
	}
	out := make([]*ActivationRow, len(vs))
	for i := range vs {
		if g := rows[vs[i].Hash]; g != nil {
			r := *g
			r.Version = in[i].Counts
			out[i] = &r
		}
	}
	return out
}
