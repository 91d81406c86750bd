package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/sepad/sepad/execution"
	bolt "go.etcd.io/bbolt"
)

// bTranscripts holds the read position of every session transcript the
// collector reads (package transcript), committed with the executions
// whose part of the transcript moved it.
var bTranscripts = []byte("transcripts")

// TranscriptOffset is the read position of one transcript file.
type TranscriptOffset struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	// LastMessage is the id of the last assistant message counted.
	LastMessage string `json:"last_message,omitempty"`
}

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

func (t *Tokens) add(u *execution.Usage) {
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

// addUsage adds an execution's usage to the aggregate's token sums and
// its model to the model counts.
func (a *aggState) addUsage(u *execution.Usage) {
	if u == nil {
		return
	}
	if a.Tokens == nil {
		a.Tokens = &Tokens{}
	}
	a.Tokens.add(u)
	a.Models = addModel(a.Models, u.Model())
}

// ModelRuns counts a version's scored executions answered by one model
// (execution.Usage.Model: several joined by "+" when the model changed
// within a run).
type ModelRuns struct {
	Model string `json:"model"`
	N     int    `json:"n"`
}

// addModel counts one run of model ("" counts nothing), keeping ms in
// name order.
func addModel(ms []ModelRuns, model string) []ModelRuns {
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

// byRuns returns a copy of ms, most runs first (then by name).
func byRuns(ms []ModelRuns) []ModelRuns {
	if len(ms) == 0 {
		return nil
	}
	out := slices.Clone(ms)
	slices.SortStableFunc(out, func(a, b ModelRuns) int { return b.N - a.N })
	return out
}

func putTranscripts(tx *bolt.Tx, offs []TranscriptOffset) error {
	if len(offs) == 0 {
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(bTranscripts)
	if err != nil {
		return err
	}
	for _, o := range offs {
		if err := putJSON(b, bkey(o.Path), o); err != nil {
			return err
		}
	}
	return nil
}

// TranscriptOffsets returns the read position of every transcript.
func (db *DB) TranscriptOffsets() ([]TranscriptOffset, error) {
	var out []TranscriptOffset
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bTranscripts)
		if b == nil {
			return nil // a database no transcript was read into
		}
		return b.ForEach(func(k, v []byte) error {
			var o TranscriptOffset
			if err := json.Unmarshal(v, &o); err != nil {
				return fmt.Errorf("decode transcript offset %q: %w", k, err)
			}
			out = append(out, o)
			return nil
		})
	})
	return out, err
}

// TranscriptOffset returns the read position of one transcript (ok false:
// none stored), for a collector that keeps in memory only the positions
// it has not committed yet.
func (db *DB) TranscriptOffset(path string) (o TranscriptOffset, ok bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bTranscripts)
		if b == nil {
			return nil
		}
		v := b.Get(bkey(path))
		if v == nil {
			return nil
		}
		if err := json.Unmarshal(v, &o); err != nil {
			return fmt.Errorf("decode transcript offset %q: %w", path, err)
		}
		ok = true
		return nil
	})
	return o, ok, err
}
