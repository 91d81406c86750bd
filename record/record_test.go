package record

import (
	"testing"
	"time"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
)

func TestFilterMatch(t *testing.T) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	s := Scored{Exec: execution.Execution{Skill: "deploy", StartedAt: at}, Result: fitness.Result{Grade: "B"},
		SkillKey: "/p#deploy", Version: "abcdef", Seq: 7}
	for _, c := range []struct {
		f    Filter
		want bool
	}{
		{Filter{}, true},
		{Filter{SkillKey: "/p#deploy", Skill: "deploy", Version: "abc", Grade: "B", MaxSeq: 7}, true},
		{Filter{SkillKey: "/q#deploy"}, false},
		{Filter{Skill: "review"}, false},
		{Filter{Version: "abd"}, false},
		{Filter{Grade: "A"}, false},
		{Filter{MaxSeq: 6}, false},
		{Filter{Since: at}, true},
		{Filter{Since: at.Add(time.Second)}, false},
	} {
		if got := c.f.Match(&s); got != c.want {
			t.Errorf("%+v: Match = %v, want %v", c.f, got, c.want)
		}
	}
	// Without a time of its own, an execution is dated when stored.
	s.Exec.StartedAt, s.Stored = time.Time{}, at
	if !(&Filter{Since: at}).Match(&s) || (&Filter{Since: at.Add(time.Second)}).Match(&s) {
		t.Error("Since does not fall back to Stored")
	}
}

func TestSkillArg(t *testing.T) {
	for arg, want := range map[string]string{
		"CLAUDE.md":            "_session",
		"/p#CLAUDE.md":         "/p#_session",
		"/p/CLAUDE.md":         "/p#_session",
		"/p/CLAUDE.local.md":   "/p#_session",
		"/p/.claude/CLAUDE.md": "/p#_session",
		"deploy":               "deploy",
		"#CLAUDE.md":           "#CLAUDE.md",
		"relative/CLAUDE.md":   "relative/CLAUDE.md",
	} {
		if got := SkillArg(arg); got != want {
			t.Errorf("SkillArg(%q) = %q, want %q", arg, got, want)
		}
	}
	if DisplayName("_session") != "CLAUDE.md" || DisplayName("deploy") != "deploy" {
		t.Error("DisplayName")
	}
}

func TestTokensAndModels(t *testing.T) {
	var tk Tokens
	tk.Add(&execution.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 300, CacheCreationTokens: 100, CostNanoUSD: 2e6, CostKnown: true})
	tk.Add(&execution.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 300, CacheCreationTokens: 100})
	tk.Add(nil)
	if tk.N != 2 || tk.Total() != 1040 || tk.MeanTokens() != 520 || tk.MeanCostUSD() != 0.001 || tk.CacheHitRate() != 0.6 || tk.CostUnknown != 1 {
		t.Errorf("%+v: total %d mean %v cost %v hit %v", tk, tk.Total(), tk.MeanTokens(), tk.MeanCostUSD(), tk.CacheHitRate())
	}
	var none *Tokens
	if none.Total() != 0 || none.MeanTokens() != 0 || none.CostUSD() != 0 || none.CacheHitRate() != 0 {
		t.Error("nil Tokens is not zero")
	}
	var ms []ModelRuns
	for _, m := range []string{"sonnet", "opus", "", "sonnet", "haiku", "sonnet", "opus"} {
		ms = AddModel(ms, m)
	}
	want := []ModelRuns{{"haiku", 1}, {"opus", 2}, {"sonnet", 3}}
	if len(ms) != 3 || ms[0] != want[0] || ms[1] != want[1] || ms[2] != want[2] {
		t.Errorf("AddModel: %v, want %v", ms, want)
	}
	by := ByRuns(ms)
	if by[0] != want[2] || by[1] != want[1] || by[2] != want[0] || ms[0] != want[0] {
		t.Errorf("ByRuns: %v (from %v)", by, ms)
	}
}

func TestTally(t *testing.T) {
	yes, no := true, false
	o := aggregate.DefaultOptions()
	xs := []Scored{
		{Exec: execution.Execution{ID: "a", Calls: []execution.ToolCall{{}, {Failed: true}}, Usage: &execution.Usage{InputTokens: 10, CostKnown: true}},
			Result:    fitness.Result{Scored: true, Score: 80},
			Integrity: &integrity.Report{Observations: []integrity.Observation{{Observed: &no}}, OverClaim: true}},
		{Exec: execution.Execution{ID: "b", Calls: []execution.ToolCall{{}}},
			Result:    fitness.Result{Scored: true, Score: 60},
			Integrity: &integrity.Report{Observations: []integrity.Observation{{Observed: &yes}}}},
		{Exec: execution.Execution{ID: "c"}, Result: fitness.Result{Scored: true, Score: 70},
			Integrity: &integrity.Report{Observations: []integrity.Observation{{Observed: nil}}}},
	}
	var tl Tally
	for i := range xs {
		tl.Add(&xs[i], o)
	}
	if tl.State.N != 3 || tl.Calls != 3 || tl.Failed != 1 || tl.Claims != 2 || tl.OverClaims != 1 || tl.Tokens == nil || tl.Tokens.N != 1 {
		t.Fatalf("%+v", tl)
	}
	var v Version
	tl.Fill(&v, o)
	want, _ := aggregate.Compute([]float64{70, 60, 80}, o) // newest first
	if v.Aggregate != want || v.FailRate != 1.0/3 || v.Claims != 2 || v.OverClaims != 1 || v.Tokens.InputTokens != 10 {
		t.Errorf("Fill: %+v, want aggregate %+v", v, want)
	}
}
