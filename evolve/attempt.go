package evolve

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/store"
)

// KindEvolve is the decision log's kind of an evolution attempt.
const KindEvolve = "evolve"

// Outcomes of an attempt.
const (
	OutcomeCandidate = "candidate" // the answer was written: the candidate
	OutcomeRefused   = "refused"   // a proposal rule refused the answer
	OutcomeFailed    = "failed"    // the mutator failed, timed out or answered nothing usable
)

// RuleMutatorFailed names a failed attempt's rule; RuleHighRisk the limit
// on high-risk mutations per day.
const (
	RuleMutatorFailed = "mutator_failed"
	RuleHighRisk      = "high_risk_limit"
)

// Attempt is one evolution attempt, recorded in the skill's decision log
// (the fields a decision record has, so `sepad decisions` shows it, and
// the attempt's own).
type Attempt struct {
	Kind     string    `json:"kind"`
	Time     time.Time `json:"time"`
	SkillKey string    `json:"skill_key"`
	Skill    string    `json:"skill"`
	// Rule is "evolve" for a written candidate, the refusing rule, or
	// mutator_failed.
	Rule    string `json:"rule"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Applied bool   `json:"applied"`
	Words   string `json:"words"`
	Notice  string `json:"notice,omitempty"`

	Outcome  string `json:"outcome"`
	Strategy string `json:"strategy"`
	Risk     string `json:"risk"`
	// By and Reason: how the strategy was chosen (Choice).
	By      string             `json:"by"`
	Reason  string             `json:"reason"`
	Weights map[string]float64 `json:"weights,omitempty"`
	// Seed, Draw and U are the exploration source's seed, the draw's
	// index and the number drawn: Draw(Seed, Draw) == U.
	Seed uint64  `json:"seed"`
	Draw int     `json:"draw"`
	U    float64 `json:"u"`
	// Signals and History are the choice's other inputs, as they stood:
	// Choose(Signals, History, U) gives Strategy again (By "rule" or
	// "draw"), from the record alone.
	Signals []SignalValue     `json:"signals,omitempty"`
	History []StrategyHistory `json:"history,omitempty"`
	// FromSeq, BaseScore, BaseGrade and BaseN describe the version the
	// attempt mutated, as it stood.
	FromSeq   int     `json:"from_seq,omitempty"`
	ToSeq     int     `json:"to_seq,omitempty"`
	BaseScore float64 `json:"base_score"`
	BaseGrade string  `json:"base_grade,omitempty"`
	BaseN     int     `json:"base_n"`
	// Mutator names the mutator; CostUSD is its reported cost.
	Mutator      string   `json:"mutator"`
	CostUSD      *float64 `json:"cost_usd,omitempty"`
	InputTokens  int64    `json:"input_tokens,omitempty"`
	OutputTokens int64    `json:"output_tokens,omitempty"`
	DurationMS   int64    `json:"duration_ms,omitempty"`
	RequestBytes int      `json:"request_bytes"`
	// Edits are the mutator's edit list, when it answered with one;
	// ChangedBytes is the change measured by its diff (ChangedBytes) and
	// AllowedBytes the edit budget it was held to.
	Edits        []Edit `json:"edits,omitempty"`
	ChangedBytes int    `json:"changed_bytes,omitempty"`
	AllowedBytes int    `json:"allowed_bytes,omitempty"`
	// Error is why a failed or refused attempt changed nothing.
	Error string `json:"error,omitempty"`
	// Auto is set for an attempt of automatic mode.
	Auto bool `json:"auto,omitempty"`
	// DryRun and Request: --dry-run's answer (never recorded).
	DryRun  bool   `json:"dry_run,omitempty"`
	Request string `json:"request,omitempty"`
}

// log holds a skill's decision log, oldest first: its attempts, and the
// engine's decisions about their candidates.
type skillLog struct {
	attempts []Attempt
	records  []mutation.Record
}

func readLog(db *store.DB, key string) (skillLog, error) {
	ds, err := db.Decisions(key, 0)
	if err != nil {
		return skillLog{}, err
	}
	var l skillLog
	for i := len(ds) - 1; i >= 0; i-- {
		var k struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(ds[i].Payload, &k); err != nil {
			return l, fmt.Errorf("decode decision %d of %s: %w", ds[i].Seq, key, err)
		}
		if k.Kind == KindEvolve {
			var a Attempt
			if err := json.Unmarshal(ds[i].Payload, &a); err != nil {
				return l, fmt.Errorf("decode attempt %d of %s: %w", ds[i].Seq, key, err)
			}
			l.attempts = append(l.attempts, a)
			continue
		}
		var r mutation.Record
		if err := json.Unmarshal(ds[i].Payload, &r); err != nil {
			return l, fmt.Errorf("decode decision %d of %s: %w", ds[i].Seq, key, err)
		}
		l.records = append(l.records, r)
	}
	return l, nil
}

// StrategyStat is one strategy's record on a skill (or on all skills).
type StrategyStat struct {
	Strategy string `json:"strategy"`
	Risk     string `json:"risk"`
	// Uses counts the candidates the strategy wrote; Failed the attempts
	// that wrote none (the mutator failed or a rule refused its answer).
	Uses   int `json:"uses"`
	Failed int `json:"failed"`
	// Decided counts the candidates the engine has decided; Improvements
	// those it accepted.
	Decided      int `json:"decided"`
	Improvements int `json:"improvements"`
	// MeanDelta is the decided candidates' mean score delta against the
	// version they replaced (the decision's delta), in points.
	MeanDelta float64 `json:"mean_delta"`
	// CostUSD sums the mutator's reported costs; Priced counts the
	// attempts whose mutator reported one (of Uses + Failed): a command
	// mutator reports none, and its cost is unknown, not zero.
	CostUSD float64 `json:"cost_usd"`
	Priced  int     `json:"priced"`
	// Weight is the draw's weight from this record (Weight).
	Weight float64 `json:"weight"`
}

// outcome is what became of a candidate: decided, accepted, delta.
func (l *skillLog) outcome(hash string) (decided, accepted bool, delta float64) {
	for _, r := range l.records {
		switch {
		case r.Kind == mutation.KindDecision && r.To == hash && r.Decision != nil && r.Decision.Reason == decide.ReasonModelsSettled:
			// Settled without a model in common with its baseline: the
			// strategy's text was never compared, so it learns nothing.
			return false, false, 0
		case r.Kind == mutation.KindDecision && r.To == hash && r.Decision != nil && r.Decision.Outcome == decide.Accept:
			return true, true, r.Decision.Delta
		case r.From == hash && r.Decision != nil && (r.Kind == mutation.KindRollback || r.Kind == mutation.KindWouldRollBack || r.Kind == mutation.KindConflict):
			return true, false, r.Decision.Delta
		case r.From == hash && r.Kind == mutation.KindRollback && r.Evidence != nil:
			return true, false, r.Evidence.Delta
		case r.From == hash && (r.Kind == mutation.KindRollback || r.Kind == mutation.KindWouldRollBack):
			return true, false, 0
		}
	}
	return false, false, 0
}

// stats folds attempts into per-strategy records, in Strategies' order.
func (l *skillLog) stats(into map[string]*StrategyStat, deltas map[string]float64) {
	for _, a := range l.attempts {
		s := into[a.Strategy]
		if s == nil {
			continue
		}
		if a.CostUSD != nil {
			s.CostUSD += *a.CostUSD
			s.Priced++
		}
		if a.Outcome != OutcomeCandidate {
			s.Failed++
			continue
		}
		s.Uses++
		decided, accepted, delta := l.outcome(a.To)
		if !decided {
			continue
		}
		s.Decided++
		if accepted {
			s.Improvements++
		}
		deltas[a.Strategy] += delta
	}
}

func newStats() (map[string]*StrategyStat, map[string]float64) {
	m := map[string]*StrategyStat{}
	for _, s := range Strategies {
		m[s.Name] = &StrategyStat{Strategy: s.Name, Risk: s.Risk}
	}
	return m, map[string]float64{}
}

func finishStats(m map[string]*StrategyStat, deltas map[string]float64) []StrategyStat {
	out := make([]StrategyStat, 0, len(m))
	for _, s := range Strategies {
		st := m[s.Name]
		if st.Decided > 0 {
			st.MeanDelta = round4(deltas[s.Name] / float64(st.Decided))
		}
		st.CostUSD = round4(st.CostUSD)
		st.Weight = Weight(StrategyHistory{Name: s.Name, Decided: st.Decided, MeanDelta: st.MeanDelta})
		out = append(out, *st)
	}
	return out
}

// Stats returns the strategies' records on one skill (key), or on every
// skill (key ""), in Strategies' order.
func Stats(db *store.DB, key string) ([]StrategyStat, error) {
	m, deltas := newStats()
	keys := []string{key}
	if key == "" {
		ks, err := db.SkillKeys()
		if err != nil {
			return nil, err
		}
		keys = ks
	}
	slices.Sort(keys)
	for _, k := range keys {
		l, err := readLog(db, k)
		if err != nil {
			return nil, err
		}
		l.stats(m, deltas)
	}
	return finishStats(m, deltas), nil
}

// history is the draw's view of the stats.
func history(stats []StrategyStat) []StrategyHistory {
	out := make([]StrategyHistory, len(stats))
	for i, s := range stats {
		out[i] = StrategyHistory{Name: s.Strategy, Decided: s.Decided, MeanDelta: s.MeanDelta}
	}
	return out
}
