package tracevalue

import (
	"math"
	"testing"

	"github.com/sepad/sepad/execution"
)

func steps(types ...string) []Step {
	var out []Step
	for _, t := range types {
		s := Step{Type: t, Content: t}
		if t == ToolCall {
			s.Tool = "tool"
		}
		out = append(out, s)
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 5e-5 }

// TestHandWorked checks each dimension and override on traces worked out
// by hand from the seed's formulas (the comments hold the arithmetic).
func TestHandWorked(t *testing.T) {
	seed := Trace{Task: "Review PR #42 for security issues", Success: true, Confidence: 0.95, Steps: []Step{
		{Type: Thought, Content: "Analyzing diff for injection vectors"},
		{Type: ToolCall, Tool: "github_pr_read"}, {Type: Observation, Content: "Found unsanitized SQL in handler.ts"},
		{Type: ToolCall, Tool: "static_analysis"}, {Type: Observation, Content: "Confirmed SQL injection vulnerability"}}}
	recover3 := Trace{Success: true, Confidence: 0.8}
	for _, tool := range []string{"A", "B", "C"} {
		recover3.Steps = append(recover3.Steps, Step{Type: ToolCall, Tool: tool}, Step{Type: Observation, Content: "fail"},
			Step{Type: ToolCall, Tool: tool}, Step{Type: Observation, Content: "ok"}, Step{Type: ErrorRecovery, Tool: tool})
	}
	for _, c := range []struct {
		name          string
		tr            Trace
		c, n, d, o, s float64
		overrides     []string
	}{
		// C = 1/4*0.5 + 1/20*0.2 = 0.135; D = 0; O = 0.9; single thought: 0.1.
		{"single thought", Trace{Steps: steps(Thought), Success: true, Confidence: 0.9}, 0.135, 0.5, 0, 0.9, 0.1, []string{"single_thought"}},
		// The seed's example: C = 3/4*0.5 + 5/20*0.2 = 0.425; D = min(1, 2/5*3) = 1;
		// O = 0.95; 0.425*0.25 + 0.5*0.35 + 1*0.15 + 0.95*0.25 = 0.66875.
		{"seed example", seed, 0.425, 0.5, 1, 0.95, 0.66875, nil},
		// C = min(1, 3/4*0.5 + 0.3 + 15/20*0.2) = 0.825; D = 3/15*3 = 0.6; O = 0.8;
		// 0.20625 + 0.175 + 0.09 + 0.2 = 0.67125, +0.1 for 3 recoveries = 0.77125.
		{"three recoveries", recover3, 0.825, 0.5, 0.6, 0.8, 0.77125, []string{"multi_recovery"}},
		// C = 2/4*0.5 + 4/20*0.2 = 0.29; D = 1/4*3 = 0.75; O = 0.4*0.3 = 0.12;
		// 0.0725 + 0.175 + 0.1125 + 0.03 = 0.39, -0.1 for one tool = 0.29.
		{"one tool, failed", Trace{Steps: []Step{{Type: ToolCall, Tool: "Bash"}, {Type: Observation}, {Type: ToolCall, Tool: "Bash"}, {Type: Observation}},
			Confidence: 0.4}, 0.29, 0.5, 0.75, 0.12, 0.29, []string{"low_tool_diversity"}},
		// 25 steps of 4 types and a recovery: C = min(1, 0.5+0.3+0.25) = 1.
		{"complexity capped", Trace{Steps: append(steps(Thought, ErrorRecovery), steps(ToolCall, Observation, ToolCall, Observation, ToolCall, Observation, ToolCall, Observation,
			ToolCall, Observation, ToolCall, Observation, ToolCall, Observation, ToolCall, Observation, ToolCall, Observation, ToolCall, Observation, ToolCall, Observation, Observation)...),
			Success: true, Confidence: 1}, 1, 0.5, 0.12, 1, 0.25 + 0.175 + 0.018 + 0.25 - 0.1, []string{"low_tool_diversity"}},
	} {
		v := Evaluate(c.tr, Vectorize(Text(c.tr)), nil)
		if !near(v.Complexity, c.c) || !near(v.Novelty, c.n) || !near(v.ToolDiversity, c.d) || !near(v.OutcomeConfidence, c.o) || !near(v.Score, c.s) {
			t.Errorf("%s: C %v N %v D %v O %v score %v; want %v %v %v %v %v", c.name, v.Complexity, v.Novelty, v.ToolDiversity, v.OutcomeConfidence, v.Score, c.c, c.n, c.d, c.o, c.s)
		}
		if len(v.Overrides) != len(c.overrides) || len(c.overrides) > 0 && v.Overrides[0] != c.overrides[0] {
			t.Errorf("%s: overrides %v, want %v", c.name, v.Overrides, c.overrides)
		}
	}
}

// TestNovelty: the same trace twice is not novel; another task is more
// novel than a near copy; the cache drops its oldest past its size.
func TestNovelty(t *testing.T) {
	a := Trace{Task: "deploy the shop to staging", Steps: []Step{{Type: ToolCall, Tool: "Bash", Content: "Bash"}, {Type: Thought, Content: "Deployed to staging."}}}
	b := Trace{Task: "deploy the shop to production", Steps: a.Steps}
	c := Trace{Task: "explain the regular expression parser's backtracking", Steps: []Step{{Type: Thought, Content: "It backtracks on alternation."}}}
	cache := NewCache(2)
	cache.Add(Vectorize(Text(a)))
	if v := Evaluate(a, Vectorize(Text(a)), cache); v.Novelty != 0 || v.Compared != 1 {
		t.Errorf("the same trace: novelty %v compared %d, want 0 and 1", v.Novelty, v.Compared)
	}
	nb := Evaluate(b, Vectorize(Text(b)), cache).Novelty
	nc := Evaluate(c, Vectorize(Text(c)), cache).Novelty
	if !(0 < nb && nb < nc && nc <= 1) {
		t.Errorf("novelty of a near copy %v, of another task %v: want 0 < near < other <= 1", nb, nc)
	}
	cache.Add(Vectorize(Text(b)))
	cache.Add(Vectorize(Text(c))) // a goes out
	if cache.Len() != 2 || Evaluate(a, Vectorize(Text(a)), cache).Novelty == 0 {
		t.Error("the oldest vector was not dropped")
	}
	if v := Evaluate(a, Vectorize(Text(a)), NewCache(0)); v.Novelty != 0.5 || v.Compared != 0 {
		t.Errorf("empty cache: novelty %v, want 0.5", v.Novelty)
	}
}

// TestFromExecution maps calls, results, a recovery and the answer.
func TestFromExecution(t *testing.T) {
	x := &execution.Execution{Skill: "fix", Complete: true, HasOutput: true, Output: "All tests pass.", Calls: []execution.ToolCall{
		{Name: "Bash", Failed: true, Error: "exit 1", Done: true}, {Name: "Edit", Done: true}, {Name: "Bash", Done: true}, {Name: "Read", Unknown: true}}}
	tr := FromExecution(x, 80, true)
	var types []string
	for _, s := range tr.Steps {
		types = append(types, s.Type)
	}
	want := []string{ToolCall, Observation, ToolCall, Observation, ToolCall, Observation, ErrorRecovery, ToolCall, Thought}
	if len(types) != len(want) {
		t.Fatalf("steps %v, want %v", types, want)
	}
	for i := range want {
		if types[i] != want[i] {
			t.Fatalf("steps %v, want %v", types, want)
		}
	}
	if tr.Task != "fix" || !tr.Success || tr.Confidence != 0.8 || tr.Steps[1].Content != "exit 1" {
		t.Errorf("trace %+v", tr)
	}
	x.Calls = x.Calls[:1]
	if FromExecution(x, 80, false).Success || FromExecution(x, 80, false).Confidence != 0 {
		t.Error("an unrecovered failure is a success, or an unscored execution has confidence")
	}
}
