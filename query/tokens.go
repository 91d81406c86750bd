package query

import (
	"math"

	"github.com/sepad/sepad/store"
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

func tokensOf(t *store.Tokens) *Tokens {
	if t == nil || t.N == 0 {
		return nil
	}
	return &Tokens{N: t.N, Total: t.Total(), Mean: round4(t.MeanTokens()),
		InputTokens: t.InputTokens, OutputTokens: t.OutputTokens, CacheReadTokens: t.CacheReadTokens, CacheCreationTokens: t.CacheCreationTokens,
		CacheHitRate: round4(t.CacheHitRate()), CostUSD: round6(t.CostUSD()), MeanCostUSD: round6(t.MeanCostUSD()), CostUnknown: t.CostUnknown}
}

// tokenChange is the relative change of the mean tokens from an older
// version to a newer one (+0.18 for 18% more); nil when either has none.
func tokenChange(newer, older *store.Version) *float64 {
	if newer.Tokens == nil || older.Tokens == nil || older.Tokens.MeanTokens() == 0 || newer.Tokens.N == 0 {
		return nil
	}
	return ptr(round4(newer.Tokens.MeanTokens()/older.Tokens.MeanTokens() - 1))
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
