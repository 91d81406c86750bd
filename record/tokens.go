package record

import (
	"slices"
	"strings"

	"github.com/sepad/sepad/execution"
)

// Tokens sums the usage of a version's executions whose transcript was
// read (N of them), under one rubric, like the other aggregates.
type Tokens struct {
	N                   int   `json:"n"`
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_tokens"`
	// CostNanoUSD is the cost in billionths of a dollar; CostUnknown
	// counts the executions with a model without a price.
	CostNanoUSD int64 `json:"cost_nano_usd"`
	CostUnknown int   `json:"cost_unknown,omitempty"`
}

// Add counts one execution's usage (nil counts nothing).
func (t *Tokens) Add(u *execution.Usage) {
	if u == nil {
		return
	}
	t.N++
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.CacheReadTokens += u.CacheReadTokens
	t.CacheCreationTokens += u.CacheCreationTokens
	t.CostNanoUSD += u.CostNanoUSD
	if !u.CostKnown {
		t.CostUnknown++
	}
}

// Total is the sum of the four kinds of tokens.
func (t *Tokens) Total() int64 {
	if t == nil {
		return 0
	}
	return t.InputTokens + t.OutputTokens + t.CacheReadTokens + t.CacheCreationTokens
}

// MeanTokens is Total / N (0 when N is 0).
func (t *Tokens) MeanTokens() float64 {
	if t == nil || t.N == 0 {
		return 0
	}
	return float64(t.Total()) / float64(t.N)
}

// CostUSD is the total cost in dollars.
func (t *Tokens) CostUSD() float64 {
	if t == nil {
		return 0
	}
	return float64(t.CostNanoUSD) / 1e9
}

// MeanCostUSD is CostUSD / N.
func (t *Tokens) MeanCostUSD() float64 {
	if t == nil || t.N == 0 {
		return 0
	}
	return t.CostUSD() / float64(t.N)
}

// CacheHitRate is cache read / (input + cache read + cache creation).
func (t *Tokens) CacheHitRate() float64 {
	if t == nil {
		return 0
	}
	in := t.InputTokens + t.CacheReadTokens + t.CacheCreationTokens
	if in == 0 {
		return 0
	}
	return float64(t.CacheReadTokens) / float64(in)
}

// ModelRuns counts a version's scored executions answered by one model
// (execution.Usage.Model: several joined by "+" when the model changed
// within a run).
type ModelRuns struct {
	Model string `json:"model"`
	N     int    `json:"n"`
}

// AddModel counts one run of model ("" counts nothing), keeping ms in
// name order.
func AddModel(ms []ModelRuns, model string) []ModelRuns {
	if model == "" {
		return ms
	}
	i, ok := slices.BinarySearchFunc(ms, model, func(m ModelRuns, t string) int { return strings.Compare(m.Model, t) })
	if ok {
		ms[i].N++
		return ms
	}
	return slices.Insert(ms, i, ModelRuns{Model: model, N: 1})
}

// ByRuns returns a copy of ms, most runs first (then by name).
func ByRuns(ms []ModelRuns) []ModelRuns {
	if len(ms) == 0 {
		return nil
	}
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b ModelRuns) int { return b.N - a.N })
	return out
}
