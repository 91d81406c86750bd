// Package tracevalue computes the value of a run: how much one execution
// would teach (four dimensions, their weights and three overrides), with
// a lexical vector for novelty against the skill's recent runs
// (docs/value.md). It is pure: the same
// execution and the same cache give the same value. The value is
// recorded beside the fitness score and is never part of it.
package tracevalue

import (
	"math"

	"github.com/sepad/sepad/execution"
)

// Step types: what each step of a run is.
const (
	Thought       = "thought"
	ToolCall      = "tool_call"
	Observation   = "observation"
	ErrorRecovery = "error_recovery"
)

// Weights of the four dimensions.
const (
	WeightComplexity = 0.25
	WeightNovelty    = 0.35
	WeightDiversity  = 0.15
	WeightOutcome    = 0.25
)

// Step is one step of a trace.
type Step struct {
	Type    string `json:"type"`
	Tool    string `json:"tool,omitempty"`
	Content string `json:"content,omitempty"`
}

// Trace is what evaluateValue reads.
type Trace struct {
	Task       string  `json:"task"`
	Steps      []Step  `json:"steps"`
	Success    bool    `json:"success"`
	Confidence float64 `json:"confidence"`
}

// Value is an execution's value score with its parts.
type Value struct {
	// Score is the composite in [0, 1], after the overrides.
	Score float64 `json:"score"`
	// The four dimensions, each in [0, 1].
	Complexity        float64 `json:"complexity"`
	Novelty           float64 `json:"novelty"`
	ToolDiversity     float64 `json:"tool_diversity"`
	OutcomeConfidence float64 `json:"outcome_confidence"`
	// Overrides applied, in order: "single_thought" (score 0.1),
	// "multi_recovery" (+0.1), "low_tool_diversity" (-0.1).
	Overrides []string `json:"overrides,omitempty"`
	// What the dimensions were computed from.
	Steps           int  `json:"steps"`
	UniqueTypes     int  `json:"unique_types"`
	UniqueTools     int  `json:"unique_tools"`
	ErrorRecoveries int  `json:"error_recoveries"`
	Success         bool `json:"success"`
	// Compared counts the previous executions novelty was measured
	// against (0: the cache was empty, novelty 0.5).
	Compared int `json:"compared"`
}

// FromExecution maps an execution onto a trace: the task is its prompt
// (else its skill's name); every tool call is a tool_call step followed
// by an observation step (its error, or its status) once its outcome is
// known; a successful call of a tool after an unrecovered failure of the
// same tool adds an error_recovery step; the final answer is a thought.
// Confidence is the fitness score / 100 (0 when unscored); success means
// complete, no API error at the end, and every failed call recovered.
func FromExecution(x *execution.Execution, score float64, scored bool) Trace {
	t := Trace{Task: x.Prompt}
	if t.Task == "" {
		t.Task = x.Skill
	}
	failed := map[string]int{} // tool -> unrecovered failures
	for i := range x.Calls {
		c := &x.Calls[i]
		t.Steps = append(t.Steps, Step{Type: ToolCall, Tool: c.Name, Content: c.Name})
		switch {
		case c.Unknown:
			continue // no result seen
		case c.OK():
			t.Steps = append(t.Steps, Step{Type: Observation, Content: "ok"})
			if failed[c.Name] > 0 {
				failed[c.Name] = 0
				t.Steps = append(t.Steps, Step{Type: ErrorRecovery, Tool: c.Name, Content: "recovered " + c.Name})
			}
		default:
			o := c.Error
			if o == "" {
				o = status(c)
			}
			t.Steps = append(t.Steps, Step{Type: Observation, Content: o})
			failed[c.Name]++
		}
	}
	if x.HasOutput && x.Output != "" {
		t.Steps = append(t.Steps, Step{Type: Thought, Content: x.Output})
	}
	unrecovered := 0
	for _, n := range failed {
		unrecovered += n
	}
	t.Success = x.Complete && x.StopError == "" && unrecovered == 0
	if scored {
		t.Confidence = clamp(score / 100)
	}
	return t
}

func status(c *execution.ToolCall) string {
	switch {
	case c.Interrupted:
		return "interrupted"
	case c.NoPost:
		return "no answer"
	}
	return "failed"
}

// Evaluate computes the value of t, novelty measured against cache
// (nil: no history, 0.5). It does not add t to cache (see Cache.Add).
func Evaluate(t Trace, vec Vector, cache *Cache) Value {
	var v Value
	types := map[string]bool{}
	tools := map[string]bool{}
	usesTool := false
	for _, s := range t.Steps {
		types[s.Type] = true
		if s.Type == ErrorRecovery {
			v.ErrorRecoveries++
		}
		if s.Tool != "" {
			usesTool = true
			if s.Type == ToolCall {
				tools[s.Tool] = true
			}
		}
	}
	n := len(t.Steps)
	v.Steps, v.UniqueTypes, v.UniqueTools, v.Success = n, len(types), len(tools), t.Success
	// C = min(1, (uniqueTypes/4)*0.5 + (errorRecovery > 0 ? 0.3 : 0) + (steps/20)*0.2)
	c := float64(len(types)) / 4 * 0.5
	if v.ErrorRecoveries > 0 {
		c += 0.3
	}
	c += float64(n) / 20 * 0.2
	v.Complexity = math.Min(1, c)
	// N = 1 - max cosine similarity; 0.5 when the cache is empty.
	v.Novelty = 0.5
	if cache != nil && cache.Len() > 0 {
		v.Compared = cache.Len()
		v.Novelty = clamp(1 - cache.MaxCosine(vec))
	}
	// D = min(1, uniqueTools / max(1, steps) * 3)
	v.ToolDiversity = math.Min(1, float64(len(tools))/math.Max(1, float64(n))*3)
	// O = confidence * (success ? 1 : 0.3)
	v.OutcomeConfidence = clamp(t.Confidence)
	if !t.Success {
		v.OutcomeConfidence *= 0.3
	}
	score := v.Complexity*WeightComplexity + v.Novelty*WeightNovelty + v.ToolDiversity*WeightDiversity + v.OutcomeConfidence*WeightOutcome
	if n == 1 && t.Steps[0].Type == Thought {
		score = 0.1
		v.Overrides = append(v.Overrides, "single_thought")
	}
	if v.ErrorRecoveries > 2 && t.Success {
		score = math.Min(1, score+0.1)
		v.Overrides = append(v.Overrides, "multi_recovery")
	}
	if len(tools) <= 1 && usesTool {
		score = math.Max(0, score-0.1)
		v.Overrides = append(v.Overrides, "low_tool_diversity")
	}
	v.Score = round(score)
	v.Complexity, v.Novelty, v.ToolDiversity, v.OutcomeConfidence = round(v.Complexity), round(v.Novelty), round(v.ToolDiversity), round(v.OutcomeConfidence)
	return v
}

// round keeps 4 decimals, so stored and shown values compare equal.
func round(f float64) float64 { return math.Round(f*1e4) / 1e4 }

func clamp(f float64) float64 {
	switch {
	case f < 0 || math.IsNaN(f):
		return 0
	case f > 1:
		return 1
	}
	return f
}
