package query

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/sepad/sepad/record"
)

// Tokens is a version's token use and cost (from the session
// transcripts, issue 16): a part of GradeRow.
type Tokens struct {
	// N counts the executions whose transcript was read.
	N int `json:"n"`
	// Total and Mean are over the four kinds of tokens.
	Total               int64   `json:"total"`
	Mean                float64 `json:"mean"`
	InputTokens         int64   `json:"input_tokens"`
	OutputTokens        int64   `json:"output_tokens"`
	CacheReadTokens     int64   `json:"cache_read_tokens"`
	CacheCreationTokens int64   `json:"cache_creation_tokens"`
	// CacheHitRate is cache read / (input + cache read + cache creation).
	CacheHitRate float64 `json:"cache_hit_rate"`
	// CostUSD and MeanCostUSD are in US dollars; CostUnknown counts the
	// executions with a model the price table lacks.
	CostUSD     float64 `json:"cost_usd"`
	MeanCostUSD float64 `json:"mean_cost_usd"`
	CostUnknown int     `json:"cost_unknown,omitempty"`
}

// ModelRuns counts a version's scored runs answered by one model
// (several joined by "+" when the model changed within a run).
type ModelRuns struct {
	Model string `json:"model"`
	N     int    `json:"n"`
}

func modelsOf(ms []record.ModelRuns) []ModelRuns {
	if len(ms) == 0 {
		return nil
	}
	out := make([]ModelRuns, len(ms))
	for i, m := range ms {
		out[i] = ModelRuns{Model: m.Model, N: m.N}
	}
	return out
}

func tokensOf(t *record.Tokens) *Tokens {
	if t == nil || t.N == 0 {
		return nil
	}
	return &Tokens{N: t.N, Total: t.Total(), Mean: round4(t.MeanTokens()),
		InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, CacheReadTokens: t.CacheReadTokens, CacheCreationTokens: t.CacheCreationTokens,
		CacheHitRate: round4(t.CacheHitRate()), CostUSD: round6(t.CostUSD()), MeanCostUSD: round6(t.MeanCostUSD()), CostUnknown: t.CostUnknown}
}

// tokenChange is the relative change of the mean tokens from an older
// version to a newer one (+0.18 for 18% more); nil when either has none.
func tokenChange(newer, older *record.Version) *float64 {
	if newer.Tokens == nil || older.Tokens == nil || older.Tokens.MeanTokens() == 0 || newer.Tokens.N == 0 {
		return nil
	}
	return ptr(round4(newer.Tokens.MeanTokens()/older.Tokens.MeanTokens() - 1))
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// DecisionCost is the cost side of a decision: the candidate's mean
// tokens and cost per run against the baseline's (their use now, from the
// transcripts), beside the score difference ("+4.1 points, +18% tokens,
// +12% cost").
type DecisionCost struct {
	TokenChange *float64 `json:"token_change"`
	CostChange  *float64 `json:"cost_change"`
	Words       string   `json:"words"`
}

// decisionCost reads the baseline's and the candidate's hashes and the
// score difference from a decision's payload (mutation.Record, whose
// "decision" is a decide.Decision) and compares the two versions'
// token use; nil when either has none.
func decisionCost(vs []record.Version, payload []byte) *DecisionCost {
	type decision struct {
		Delta     float64               `json:"delta"`
		Baseline  struct{ Hash string } `json:"baseline"`
		Candidate struct{ Hash string } `json:"candidate"`
	}
	var rec struct {
		Decision *decision `json:"decision"`
	}
	if json.Unmarshal(payload, &rec) != nil || rec.Decision == nil {
		return nil
	}
	p := rec.Decision
	if p.Baseline.Hash == "" || p.Candidate.Hash == "" {
		return nil
	}
	var base, cand *record.Version
	for i := range vs {
		switch vs[i].Hash {
		case p.Baseline.Hash:
			base = &vs[i]
		case p.Candidate.Hash:
			cand = &vs[i]
		}
	}
	if base == nil || cand == nil {
		return nil
	}
	tc := tokenChange(cand, base)
	if tc == nil {
		return nil
	}
	out := &DecisionCost{TokenChange: tc}
	if b := base.Tokens.MeanCostUSD(); b > 0 {
		out.CostChange = ptr(round4(cand.Tokens.MeanCostUSD()/b - 1))
	}
	out.Words = fmt.Sprintf("%+.1f points, %+.0f%% tokens", p.Delta, *tc*100)
	if out.CostChange != nil {
		out.Words += fmt.Sprintf(", %+.0f%% cost", *out.CostChange*100)
	}
	return out
}
