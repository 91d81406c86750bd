// Package evolve closes SEPA's loop: it picks a mutation strategy from a
// skill's weakest signal (or a recorded, seeded draw over the skill's
// strategy history), builds a bounded mutation request, hands it to a
// mutator (the user's Claude Code, headless, or a configured command) and
// submits the answer through the mutation engine's Propose, so that every
// proposal rule and limit applies. docs/evolve.md documents the loop.
package evolve

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/sepad/sepad/fitness"
)

// Risk levels of strategies. At most HighRiskPerDay high-risk mutations
// are made per skill in any 24 hours.
const (
	RiskLow    = "low"
	RiskMedium = "medium"
	RiskHigh   = "high"
)

// Strategy is one way of mutating a prompt file.
type Strategy struct {
	Name string `json:"name"`
	Risk string `json:"risk"`
	// Signal is the fitness signal that selects the strategy by rule
	// ("" for strategies only reached by the draw or by name).
	Signal string `json:"signal,omitempty"`
	// Instruction is what the mutator is told to do.
	Instruction string `json:"instruction"`
}

// Strategies are the known strategies, in the order the draw visits them.
// docs/evolve.md lists them; a test keeps the two in step.
var Strategies = []Strategy{
	{Name: "constraint_add", Risk: RiskLow, Signal: fitness.SignalErrorRate,
		Instruction: "Add explicit constraints and checks that prevent the failures shown in the evidence: " +
			"name the commands or inputs that failed, say what to verify before running them, and what to do instead when they fail. " +
			"Keep every existing instruction unless it causes a failure shown."},
	{Name: "step_reorder", Risk: RiskMedium, Signal: fitness.SignalEfficiency,
		Instruction: "Reorder, merge or parallelise the steps so that the task takes fewer tool calls and less time: " +
			"gather what is needed first, avoid repeated reads and retries, and stop as soon as the goal is reached. " +
			"Do not remove a step that checks correctness."},
	{Name: "example_inject", Risk: RiskLow, Signal: fitness.SignalOutput,
		Instruction: "Add one short, concrete example of a good final answer for this task (what it states, its code, " +
			"its explanation and its next steps), placed where the instructions describe the answer."},
	{Name: "format_change", Risk: RiskLow, Signal: fitness.SignalStructure,
		Instruction: "Specify the format of the final answer: a markdown heading, a bulleted or numbered list of what was done, " +
			"code in fenced blocks, and a closing line with next steps."},
	{Name: "clarify", Risk: RiskLow,
		Instruction: "Rewrite ambiguous or vague instructions so that each says exactly what to do, in what order and when it is done. " +
			"Keep the meaning and the sections; do not add new requirements."},
	{Name: "simplify", Risk: RiskHigh,
		Instruction: "Shorten the file: remove redundant, contradictory or unused instructions and merge repeated ones, " +
			"keeping every heading and every instruction that the evidence shows is needed."},
}

// Lookup returns the strategy named name.
func Lookup(name string) (Strategy, bool) {
	for _, s := range Strategies {
		if s.Name == name {
			return s, true
		}
	}
	return Strategy{}, false
}

// Names lists the strategies' names.
func Names() []string {
	out := make([]string, len(Strategies))
	for i, s := range Strategies {
		out[i] = s.Name
	}
	return out
}

// Thresholds of the rule-based choice (SEPA's protocol), checked in this
// order; the first that holds picks its strategy.
const (
	MaxErrorRate     = 0.3 // error_rate above → constraint_add
	MinEfficiency    = 0.5 // efficiency below → step_reorder
	MinOutputQuality = 0.6 // output_quality below → example_inject
	MinStructure     = 0.5 // structure_score below → format_change
)

// SignalValue is a version's mean of one fitness signal's raw value over
// the executions where it was present (for error_rate the rate itself).
type SignalValue struct {
	Signal string  `json:"signal"`
	Value  float64 `json:"value"`
	// N counts the executions where the signal was present.
	N int `json:"n"`
}

// StrategyHistory is what the draw knows of one strategy on one skill.
type StrategyHistory struct {
	Name string `json:"name"`
	// Decided counts the strategy's candidates the engine has decided
	// (accepted, rejected or rolled back).
	Decided int `json:"decided"`
	// MeanDelta is their mean score delta against the version they
	// replaced, in points.
	MeanDelta float64 `json:"mean_delta"`
}

// Weight is the draw's weight of a strategy: 1 + mean delta/10 (so a
// strategy that gained 10 points on average weighs 2), ×1.5 for a
// strategy never decided on this skill, ×0.5 for a negative mean delta,
// and at least 0.1.
func Weight(h StrategyHistory) float64 {
	if h.Decided == 0 {
		return 1.5
	}
	w := 1 + h.MeanDelta/10
	if h.MeanDelta < 0 {
		w *= 0.5
	}
	return math.Max(0.1, round4(w))
}

// Choice is a chosen strategy and why.
type Choice struct {
	Strategy string `json:"strategy"`
	Risk     string `json:"risk"`
	// By is "rule" (a weak signal), "draw" (the weighted draw) or "named"
	// (given with --strategy).
	By string `json:"by"`
	// Reason says in words what decided.
	Reason string `json:"reason"`
	// Weights are the draw's weights, by strategy (By "draw" only).
	Weights map[string]float64 `json:"weights,omitempty"`
	// U is the draw's uniform number in [0, 1) (By "draw" only).
	U float64 `json:"u,omitempty"`
}

// Choose picks a strategy for a version with the given mean signals:
// the first weak signal by SEPA's thresholds, else a weighted draw over
// the skill's history with u, a uniform number in [0, 1) from the
// recorded exploration source. It is pure: the same inputs give the same
// choice.
func Choose(signals []SignalValue, history []StrategyHistory, u float64) Choice {
	val := map[string]SignalValue{}
	for _, s := range signals {
		if s.N > 0 {
			val[s.Signal] = s
		}
	}
	rules := []struct {
		signal, strategy string
		weak             func(float64) bool
		words            string
	}{
		{fitness.SignalErrorRate, "constraint_add", func(v float64) bool { return v > MaxErrorRate }, "error rate %.2f is above %.2g"},
		{fitness.SignalEfficiency, "step_reorder", func(v float64) bool { return v < MinEfficiency }, "efficiency %.2f is below %.2g"},
		{fitness.SignalOutput, "example_inject", func(v float64) bool { return v < MinOutputQuality }, "output quality %.2f is below %.2g"},
		{fitness.SignalStructure, "format_change", func(v float64) bool { return v < MinStructure }, "structure %.2f is below %.2g"},
	}
	thresholds := map[string]float64{fitness.SignalErrorRate: MaxErrorRate, fitness.SignalEfficiency: MinEfficiency,
		fitness.SignalOutput: MinOutputQuality, fitness.SignalStructure: MinStructure}
	for _, r := range rules {
		if s, ok := val[r.signal]; ok && r.weak(s.Value) {
			st, _ := Lookup(r.strategy)
			return Choice{Strategy: st.Name, Risk: st.Risk, By: "rule",
				Reason: fmt.Sprintf(r.words, s.Value, thresholds[r.signal]) + fmt.Sprintf(" (mean over %d runs)", s.N)}
		}
	}
	hist := map[string]StrategyHistory{}
	for _, h := range history {
		hist[h.Name] = h
	}
	weights := map[string]float64{}
	total := 0.0
	for _, s := range Strategies {
		h := hist[s.Name]
		h.Name = s.Name
		w := Weight(h)
		weights[s.Name] = w
		total += w
	}
	u = math.Min(math.Max(u, 0), math.Nextafter(1, 0))
	x := u * total
	pick := Strategies[len(Strategies)-1]
	acc := 0.0
	for _, s := range Strategies {
		acc += weights[s.Name]
		if x < acc {
			pick = s
			break
		}
	}
	// Words for a person; the draw's number and weights are in Draw
	// (sepad evolve -v) and the JSON (issue 36 item 6).
	return Choice{Strategy: pick.Name, Risk: pick.Risk, By: "draw", Weights: weights, U: u,
		Reason: "no signal is weak, so it was drawn at random, each strategy weighted by how its candidates did on this skill"}
}

// Draw is a drawn choice's numbers ("u=0.6943 over constraint_add 1.50,
// …", in the draw's order), "" for a choice by rule or by name.
func (c Choice) Draw() string {
	if c.By != "draw" {
		return ""
	}
	var parts []string
	for _, s := range Strategies {
		parts = append(parts, fmt.Sprintf("%s %.2f", s.Name, c.Weights[s.Name]))
	}
	return fmt.Sprintf("u=%.4f over %s", c.U, strings.Join(parts, ", "))
}

// Named is the choice of a strategy given by name, or an error listing
// the known names.
func Named(name string) (Choice, error) {
	s, ok := Lookup(name)
	if !ok {
		names := Names()
		slices.Sort(names)
		return Choice{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownStrategy, name, strings.Join(names, ", "))
	}
	return Choice{Strategy: s.Name, Risk: s.Risk, By: "named", Reason: "strategy given by name"}, nil
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }
