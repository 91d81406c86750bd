package record

import (
	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/integrity"
)

// Tally is the stored aggregate of one version under one rubric: the
// trimmed, recency-weighted state of its scores (package aggregate) and
// the sums a version's row shows beside it. Each scored execution is
// added once, in commit order (Add); a version's figures are read from it
// (Fill).
type Tally struct {
	State  aggregate.State `json:"state"`
	Calls  int             `json:"calls"`
	Failed int             `json:"failed"`
	Tokens *Tokens         `json:"tokens,omitempty"`
	Models []ModelRuns     `json:"models,omitempty"`
	// Claims and OverClaims count integrity reports (Version).
	Claims     int `json:"claims,omitempty"`
	OverClaims int `json:"over_claims,omitempty"`
}

// Add counts one scored execution: its score, calls, failed calls,
// integrity report, tokens and model.
func (t *Tally) Add(s *Scored, o aggregate.Options) {
	t.State.Add(s.Result.Score, s.Exec.ID, o)
	t.Calls += len(s.Exec.Calls)
	t.Failed += s.Exec.Failures()
	t.Claims += Claims(s.Integrity)
	t.OverClaims += OverClaims(s.Integrity)
	t.AddUsage(s.Exec.Usage)
}

// AddUsage adds an execution's usage to the token sums and its model to
// the model counts (nil adds nothing).
func (t *Tally) AddUsage(u *execution.Usage) {
	if u == nil {
		return
	}
	if t.Tokens == nil {
		t.Tokens = &Tokens{}
	}
	t.Tokens.Add(u)
	t.Models = AddModel(t.Models, u.Model())
}

// Fill sets v's aggregate, fail rate, claims, tokens and models (most
// runs first) from t.
func (t *Tally) Fill(v *Version, o aggregate.Options) {
	v.Aggregate = t.State.Aggregate(o)
	if t.Calls > 0 {
		v.FailRate = float64(t.Failed) / float64(t.Calls)
	}
	v.Claims, v.OverClaims = t.Claims, t.OverClaims
	v.Tokens, v.Models = t.Tokens, ByRuns(t.Models)
}

// Claims is 1 when r holds an observation the calls can tell.
func Claims(r *integrity.Report) int {
	if r == nil {
		return 0
	}
	for _, o := range r.Observations {
		if o.Comparable() {
			return 1
		}
	}
	return 0
}

// OverClaims is 1 when r says the answer claims more than the calls show.
func OverClaims(r *integrity.Report) int {
	if r != nil && r.OverClaim {
		return 1
	}
	return 0
}
