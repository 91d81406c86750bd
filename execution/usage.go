package execution

import (
	"slices"
	"strings"
)

// Usage is what an execution cost, read from the session's transcript
// (package transcript, docs/executions.md "Tokens and cost"). Tokens are
// counted once per assistant message, whatever the number of records it
// was written as.
type Usage struct {
	// InputTokens, OutputTokens, CacheReadTokens and CacheCreationTokens
	// are the sums over the execution's assistant messages.
	InputTokens         int64 `json:"input_tokens"`
	OutputTokens        int64 `json:"output_tokens"`
	CacheReadTokens     int64 `json:"cache_read_tokens"`
	CacheCreationTokens int64 `json:"cache_creation_tokens"`
	// Messages counts the assistant messages.
	Messages int `json:"messages"`
	// Models are the models that answered, sorted.
	Models []string `json:"models,omitempty"`
	// CostNanoUSD is the cost in billionths of a US dollar from the price
	// table in force when the execution was read; CostKnown is false when
	// a model had no price (the cost then covers the priced ones only).
	CostNanoUSD int64 `json:"cost_nano_usd"`
	CostKnown   bool  `json:"cost_known"`
	// SkippedLines counts transcript lines over the reader's size cap,
	// not read.
	SkippedLines int `json:"skipped_lines,omitempty"`
}

// Model names the model of a run: the one model that answered, or
// several joined by "+" (sorted) when the model changed within the run;
// "" when none is known (decisions compare runs of the same Model,
// package decide).
func (u *Usage) Model() string {
	if u == nil {
		return ""
	}
	switch len(u.Models) {
	case 0:
		return ""
	case 1:
		return u.Models[0]
	}
	ms := slices.Clone(u.Models)
	slices.Sort(ms)
	return strings.Join(slices.Compact(ms), "+")
}

// Tokens is the sum of the four kinds.
func (u *Usage) Tokens() int64 {
	if u == nil {
		return 0
	}
	return u.InputTokens + u.OutputTokens + u.CacheReadTokens + u.CacheCreationTokens
}

// CacheHitRate is the share of input tokens read from the cache:
// cache read / (input + cache read + cache creation); 0 with no input.
func (u *Usage) CacheHitRate() float64 {
	if u == nil {
		return 0
	}
	in := u.InputTokens + u.CacheReadTokens + u.CacheCreationTokens
	if in == 0 {
		return 0
	}
	return float64(u.CacheReadTokens) / float64(in)
}

// CostUSD is the cost in dollars.
func (u *Usage) CostUSD() float64 {
	if u == nil {
		return 0
	}
	return float64(u.CostNanoUSD) / 1e9
}
