package fitness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// goldenFile compares got with testdata/name, rewriting it under -update.
func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (regenerate with go test ./fitness -update)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("differs from %s (if the rubric changed on purpose: -update, and bump RubricVersion):\n%s", p, got)
	}
}

func goldenJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, name+".golden.json", append(b, '\n'))
}

// TestSeedGolden reproduces each worked example of sepa-scoring-rubric.md
// on a literal execution, asserts the seed's figure, and pins the whole
// breakdown in testdata/seed_*.golden.json.
func TestSeedGolden(t *testing.T) {
	cases := []struct {
		name   string
		x      execution.Execution
		signal string
		value  float64 // the seed's figure for Value
		eps    float64
		sub    float64 // SubScore
		detail string
	}{
		{
			name: "tool_success_9_of_10", signal: SignalToolSuccess, value: 0.90, sub: 0.90,
			// Read 5/5, Write 2/2, Bash 2/3, as in the seed.
			x: execution.Execution{Calls: append(append(calls(5, 0),
				execution.ToolCall{Name: "Write", Done: true}, execution.ToolCall{Name: "Write", Done: true},
				execution.ToolCall{Name: "Bash", Done: true}, execution.ToolCall{Name: "Bash", Done: true}),
				calls(0, 1)...)},
			detail: "9/10 tool calls succeeded",
		},
		{
			name: "efficiency_60s_of_120s", signal: SignalEfficiency, value: 0.50, sub: 0.50,
			x:      execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(60 * time.Second)},
			detail: "60s of 120s (0.50)",
		},
		{
			// The seed prints 0.47 for 1 - 8/15 = 0.4667.
			name: "efficiency_8_of_15_tools", signal: SignalEfficiency, value: 0.4667, eps: 0.00005, sub: 7.0 / 15,
			x:      execution.Execution{Calls: calls(8, 0)},
			detail: "8 of 15 tools (0.47)",
		},
		{
			name: "efficiency_both_parts_mean", signal: SignalEfficiency, value: (0.5 + 7.0/15) / 2, sub: (0.5 + 7.0/15) / 2,
			x:      execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(60 * time.Second), Calls: calls(8, 0)},
			detail: "60s of 120s (0.50), 8 of 15 tools (0.47), mean",
		},
		{
			// Bash failed twice, then one retry: 3 errors, component 0.70.
			name: "three_errors_component_0.70", signal: SignalErrorRate, value: 0.30, sub: 0.70,
			x:      execution.Execution{Calls: append(calls(7, 2), execution.ToolCall{Name: "Bash", Done: true, Retry: true})},
			detail: "3 errors: 2 failed calls, 1 retry",
		},
		{
			name: "ten_or_more_errors_component_0", signal: SignalErrorRate, value: 1, sub: 0,
			x:      execution.Execution{Calls: calls(0, 12), Corrections: 1},
			detail: "13 errors: 12 failed calls, 1 user correction",
		},
		{
			name: "structure_all_three", signal: SignalStructure, value: 1, sub: 1,
			x:      execution.Execution{HasOutput: true, Output: "# Plan\n\n1. read\n2. write\n\n```sh\n# not a heading\nmake\n```\n"},
			detail: "has headings, lists, code blocks",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ScoreWith(&c.x, medium, sepaOnly)
			s := signal(r, c.signal)
			eps := math.Max(c.eps, 1e-12)
			if !s.Present || !near(s.Value, c.value, eps) || !near(s.SubScore, c.sub, 1e-12) {
				t.Errorf("%s = %+v, want value %v, sub-score %v", c.signal, s, c.value, c.sub)
			}
			if s.Detail != c.detail {
				t.Errorf("detail %q, want %q", s.Detail, c.detail)
			}
			goldenJSON(t, "seed_"+c.name, r)
		})
	}
}

// sepaOnly scores with the five SEPA signals alone (scoring.outcome_weight
// 0 turns the outcome signal off): the seed's formulas are SEPA's.
var sepaOnly = Extra{Weights: OptionalWeights{Label: 0.25, Checks: 0.25}}

// TestSeedFormula checks the weighted sum against the seed's formula
// written out by hand, on an execution where every signal is present.
func TestSeedFormula(t *testing.T) {
	x := execution.Execution{
		Prompt:    "fix the failing test in cart.go",
		StartedAt: epoch, EndedAt: epoch.Add(60 * time.Second),
		Calls: append(append(calls(7, 2), execution.ToolCall{Name: "Bash", Done: true, Retry: true}),
			execution.ToolCall{Name: "Edit", Done: true}),
		HasOutput: true,
		Output: "## Fix\n\nThe test failed because the total ignored the discount.\n\n" +
			"- changed `cart.go`\n\n```go\ntotal := price - discount\n```\n\nNext steps: run the suite.\n",
	}
	r := ScoreWith(&x, medium, sepaOnly)
	ts := 9.0 / 11
	eff := ((1 - 60.0/120) + (1 - 11.0/15)) / 2
	want := math.Round((0.35*ts+0.25*1+0.20*eff+0.15*(1-0.3)+0.05*1)*100*100) / 100
	if !r.Scored || r.Score != want || r.Grade != GradeOf(want) {
		t.Fatalf("score %v %q, want %v: %+v", r.Score, r.Grade, want, r.Signals)
	}
	goldenJSON(t, "seed_formula_all_present", r)
}

// TestGradeGolden pins the grade table of the rubric, boundaries included.
func TestGradeGolden(t *testing.T) {
	var b strings.Builder
	for _, s := range []float64{100, 90, 89.999, 89.995, 89.99, 80, 79.99, 70, 69.99, 60, 59.99, 50, 49.99, 0, -5, math.NaN()} {
		g := GradeOf(s)
		fmt.Fprintf(&b, "%-7v %-2s rank=%-2d %s\n", s, g, g.Rank(), g.Advice())
	}
	goldenFile(t, "grades.golden.txt", []byte(b.String()))
	want := map[float64]Grade{90: APlus, 89.99: A, 80: A, 79.99: B, 70: B, 69.99: C, 60: C, 59.99: D, 50: D, 49.99: F}
	for s, g := range want {
		if GradeOf(s) != g {
			t.Errorf("GradeOf(%v) = %q, want %q", s, GradeOf(s), g)
		}
	}
}

func TestParseGradeRoundTrip(t *testing.T) {
	for _, g := range []Grade{APlus, A, B, C, D, F} {
		p, err := ParseGrade(strings.ToLower(string(g)))
		if err != nil || p != g {
			t.Errorf("ParseGrade(%q) = %q, %v", g, p, err)
		}
		if g.MinScore() > 0 && GradeOf(g.MinScore()) != g {
			t.Errorf("%s.MinScore() = %v is graded %s", g, g.MinScore(), GradeOf(g.MinScore()))
		}
	}
	for _, s := range []string{"", "E", "A++", "ungraded"} {
		if g, err := ParseGrade(s); err == nil {
			t.Errorf("ParseGrade(%q) = %q, want an error", s, g)
		}
	}
	if Ungraded.Rank() >= F.Rank() || Ungraded.Advice() == "" {
		t.Error("Ungraded must rank below F and still explain itself")
	}
}

func TestAbsentSignals(t *testing.T) {
	cases := []struct {
		name    string
		x       execution.Execution
		lim     Limits
		present string // T/F per signal, rubric order
		score   float64
	}{
		// (0.35*1 + 0.20*(1-3/15) + 0.15*1) / 0.70
		{"tools_only", execution.Execution{Calls: calls(3, 0)}, medium, "TFTTF", 94.29},
		{"output_only", execution.Execution{HasOutput: true, Output: "The server runs in UTC, set in /etc/timezone."}, medium, "FTFTT", -1},
		{"blank_output", execution.Execution{HasOutput: true, Output: " \n\t"}, medium, "FFFFF", 0},
		// Text without HasOutput is ignored: the collector decides whether
		// a final message exists.
		{"output_without_flag", execution.Execution{Output: "stale"}, medium, "FFFFF", 0},
		// A user correction alone is evidence for error_rate and the
		// verdict: (0.15·0.8 + 0.75·0) / 0.9.
		{"correction_only", execution.Execution{Corrections: 2}, medium, "FFFTFT", 13.33},
		{"acceptance_only", execution.Execution{Acceptances: 1}, medium, "FFFFFT", 100},
		{"timing_only", execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(30 * time.Second)}, medium, "FFTFF", 75},
		// No limits for the complexity: efficiency absent.
		{"no_limits", execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(30 * time.Second), Calls: calls(2, 0)}, Limits{}, "TFFTF", 100},
		// Zero tool calls never make a tool-efficiency of 1.
		{"time_limit_only", execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(90 * time.Second)}, Limits{MaxTime: 2 * time.Minute}, "FFTFF", 25},
		{"negative_corrections_are_none", execution.Execution{Corrections: -4}, medium, "FFFFF", 0},
		{"nothing", execution.Execution{}, medium, "FFFFF", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, c.lim)
			var got strings.Builder
			wsum := 0.0
			for _, s := range r.Signals {
				if !s.Present {
					got.WriteByte('F')
					if s.EffectiveWeight != 0 || s.Contribution != 0 {
						t.Errorf("absent %s: weight %v, contribution %v", s.Signal, s.EffectiveWeight, s.Contribution)
					}
					continue
				}
				got.WriteByte('T')
				wsum += s.EffectiveWeight
			}
			if got.String() != c.present {
				t.Errorf("present %s, want %s: %+v", got.String(), c.present, r.Signals)
			}
			if c.present == "FFFFF" {
				if r.Scored || r.Score != 0 || r.Grade != Ungraded {
					t.Errorf("all absent but scored: %+v", r)
				}
				return
			}
			if !r.Scored || !near(wsum, 1, 0.0005) {
				t.Errorf("scored %v, effective weights sum to %v", r.Scored, wsum)
			}
			if c.score >= 0 && r.Score != c.score {
				t.Errorf("score %v, want %v", r.Score, c.score)
			}
		})
	}
}

func TestNilAndShape(t *testing.T) {
	r := Score(nil, medium)
	if r.Scored || len(r.Signals) != 5 || r.RubricVersion != RubricVersion || r.Grade != Ungraded {
		t.Fatalf("nil execution: %+v", r)
	}
	names := []string{"tool_success_rate", "output_quality", "efficiency", "error_rate", "structure_score"}
	weights := []float64{0.35, 0.25, 0.20, 0.15, 0.05}
	for i, s := range r.Signals {
		if s.Signal != names[i] || s.Weight != weights[i] {
			t.Errorf("row %d = %s/%v, want %s/%v", i, s.Signal, s.Weight, names[i], weights[i])
		}
	}
	b, _ := json.Marshal(Score(&execution.Execution{Calls: calls(1, 1)}, medium))
	for _, key := range []string{`"rubric_version":"` + RubricVersion + `"`, `"scored":true`, `"signal":"tool_success_rate"`, `"present":true`,
		`"value":`, `"sub_score":`, `"weight":`, `"effective_weight":`, `"contribution":`, `"detail":"1/2 tool calls succeeded"`,
		`"errors":{"tool_failures":1,"retries":0,"output_patterns":0,"soft_failures":0,"corrections":0,"stop_failures":0,"total":1}`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}

// TestContributionsSumToScore covers the rounding cases: thirds, sevenths,
// everything zero, everything perfect.
func TestContributionsSumToScore(t *testing.T) {
	cases := []struct {
		name string
		x    execution.Execution
	}{
		{"thirds", execution.Execution{Calls: calls(1, 2)}},
		{"sevenths", execution.Execution{Calls: calls(4, 3), StartedAt: epoch, EndedAt: epoch.Add(37 * time.Second)}},
		{"all_zero", execution.Execution{Calls: calls(0, 20), StartedAt: epoch, EndedAt: epoch.Add(time.Hour)}},
		{"perfect", execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(time.Millisecond)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, medium)
			sum := 0.0
			for _, s := range r.Signals {
				sum += s.Contribution
				exact := s.SubScore * s.Weight * 100
				if tot := totalWeight(r); s.Present && !near(s.Contribution, exact/tot, 0.01+1e-9) {
					t.Errorf("%s contribution %v, exact %v", s.Signal, s.Contribution, exact/tot)
				}
			}
			if !near(sum, r.Score, 1e-9) {
				t.Errorf("contributions sum to %v, score %v", sum, r.Score)
			}
			if r.Score != math.Round(r.Score*100)/100 {
				t.Errorf("score %v has more than 2 decimals", r.Score)
			}
		})
	}
}

func totalWeight(r Result) float64 {
	w := 0.0
	for _, s := range r.Signals {
		if s.Present {
			w += s.Weight
		}
	}
	return w
}

func TestScoreLeavesInputAlone(t *testing.T) {
	x := execution.Execution{Prompt: "fix it", Calls: calls(2, 1), HasOutput: true, Output: "# Done\n\n- a\n"}
	before, _ := json.Marshal(x)
	r1, r2 := Score(&x, medium), Score(&x, medium)
	after, _ := json.Marshal(x)
	if !bytes.Equal(before, after) {
		t.Error("Score modified its input")
	}
	b1, _ := json.Marshal(r1)
	b2, _ := json.Marshal(r2)
	if !bytes.Equal(b1, b2) {
		t.Error("Score is not deterministic")
	}
}

func TestEfficiencyDetail(t *testing.T) {
	cases := []struct {
		name   string
		x      execution.Execution
		want   float64
		detail string
	}{
		{"over_both_limits_clamps_to_0", execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(5 * time.Minute), Calls: calls(20, 0)}, 0,
			"300s of 120s (0.00), 20 of 15 tools (0.00), mean"},
		{"tool_durations_when_no_span", execution.Execution{Calls: []execution.ToolCall{
			{Name: "Bash", HasDuration: true, DurationMS: 1500}, {Name: "Read", HasDuration: true, DurationMS: 500}}},
			((1 - 2.0/120) + (1 - 2.0/15)) / 2, "2s of 120s (0.98), 2 of 15 tools (0.87), mean"},
		{"sub_second", execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(850 * time.Millisecond)}, 1 - 0.85/120, "850ms of 120s (0.99)"},
		{"fractional_seconds", execution.Execution{StartedAt: epoch, EndedAt: epoch.Add(4500 * time.Millisecond)}, 1 - 4.5/120, "4.5s of 120s (0.96)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := signal(Score(&c.x, medium), SignalEfficiency)
			if !near(s.Value, c.want, 1e-12) || s.Detail != c.detail {
				t.Errorf("%+v, want %v %q", s, c.want, c.detail)
			}
		})
	}
}

func TestErrorRateDetail(t *testing.T) {
	cases := []struct {
		name   string
		x      execution.Execution
		total  int
		detail string
	}{
		{"none", execution.Execution{Calls: calls(3, 0)}, 0, "no errors"},
		{"one_correction", execution.Execution{Corrections: 1}, 1, "1 error: 1 user correction"},
		// A failed retry is both a failed call and a retry.
		{"failed_retry_counts_twice", execution.Execution{Calls: []execution.ToolCall{
			{Name: "Bash", Failed: true}, {Name: "Bash", Failed: true, Retry: true}}}, 3, "3 errors: 2 failed calls, 1 retry"},
		{"interrupted_and_unanswered_fail", execution.Execution{Calls: []execution.ToolCall{
			{Name: "Bash", Interrupted: true}, {Name: "Read", NoPost: true}, {Name: "Read", Done: true}}}, 2, "2 errors: 2 failed calls"},
		{"output_patterns", execution.Execution{HasOutput: true,
			Output: "Traceback (most recent call last):\n  File \"x.py\"\nValueError: bad\n\nI was unable to fix it."}, 3,
			"3 errors: 3 error patterns in the output (traceback, exception, gave_up)"},
		{"output_patterns_capped_at_3", execution.Execution{HasOutput: true,
			Output: "Traceback (most recent call last):\nValueError: bad\nError: x\nfatal: y\nSegmentation fault\n\nI was unable to fix it."}, 3,
			"3 errors: 3 error patterns in the output (traceback, error_line, exception, fatal, segfault, gave_up; 6 found, capped)"},
		{"soft_failure", execution.Execution{Calls: []execution.ToolCall{{Name: "Bash", Done: true, Response: "sh: rg: command not found"}}}, 1,
			"1 error: 1 error in a tool's output"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, medium)
			s := signal(r, SignalErrorRate)
			if r.Errors.Total != c.total || s.Detail != c.detail || !near(s.Value, float64(c.total)/10, 1e-12) {
				t.Errorf("errors %+v, signal %+v; want total %d, detail %q", r.Errors, s, c.total, c.detail)
			}
		})
	}
}

// A turn that ended on an API error has no answer: output quality is
// present at 0, and the error counts once (rubric 1.1.0).
func TestStopFailureIsEvidenceAgainst(t *testing.T) {
	ok := Score(&execution.Execution{Calls: calls(2, 0), Output: "## Done\n\n- shipped\n", HasOutput: true}, medium)
	bad := Score(&execution.Execution{Calls: calls(2, 0), StopError: "unknown"}, medium)
	out := bad.Signals[1]
	if !out.Present || out.SubScore != 0 || !strings.Contains(out.Detail, "API error (unknown)") {
		t.Errorf("output_quality = %+v", out)
	}
	if bad.Errors.StopFailures != 1 || bad.Errors.Total != 1 {
		t.Errorf("errors = %+v", bad.Errors)
	}
	if bad.Score > ok.Score-15 {
		t.Errorf("API error %.2f vs answer %.2f: the failure must cost at least 15 points", bad.Score, ok.Score)
	}
}

// TestFailuresOnlyLog: an imported log that records failures but never a
// success knows the outcome of its failed calls alone, so a rate over the
// known calls would be 0 whatever the others did. Tool success is then
// absent, with its reason; error_rate still counts the logged failures.
// A log that records successes too keeps its rate over the known calls,
// and a run whose every call is known keeps it even in such a log.
func TestFailuresOnlyLog(t *testing.T) {
	unknown := func(cs []execution.ToolCall, n int) []execution.ToolCall {
		for i := 0; i < n; i++ {
			cs = append(cs, execution.ToolCall{Name: "Read", Unknown: true})
		}
		return cs
	}
	cases := []struct {
		name    string
		x       execution.Execution
		present bool
		score   float64
		detail  string
	}{
		// efficiency 1 - 8/15, error_rate 1 - 2/10, over 0.35:
		// (0.20·0.4667 + 0.15·0.8) / 0.35.
		{"failures_only", execution.Execution{Calls: unknown(calls(0, 2), 6), FailuresOnly: true}, false, 60.95,
			"the log records failures only: tool success unknown (2 failed calls, 6 of unknown outcome)"},
		// The same calls from a log that records successes: 0/2 over the
		// known calls, (0 + 0.20·0.4667 + 0.15·0.8) / 0.70.
		{"successes_logged", execution.Execution{Calls: unknown(calls(0, 2), 6)}, true, 30.48,
			"0/2 tool calls succeeded (6 more of unknown outcome)"},
		// Every call's failure logged: nothing is unknown, the rate is
		// true: (0 + 0.20·(1 - 2/15) + 0.15·0.8) / 0.70.
		{"every_call_known", execution.Execution{Calls: calls(0, 2), FailuresOnly: true}, true, 41.90,
			"0/2 tool calls succeeded"},
		// (0.20·(1 - 2/15) + 0.15·0.9) / 0.35.
		{"one_failure", execution.Execution{Calls: unknown(calls(0, 1), 1), FailuresOnly: true}, false, 88.10,
			"the log records failures only: tool success unknown (1 failed call, 1 of unknown outcome)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, medium)
			s := signal(r, SignalToolSuccess)
			if s.Present != c.present || s.Detail != c.detail {
				t.Errorf("tool success present %v, %q; want %v, %q", s.Present, s.Detail, c.present, c.detail)
			}
			if !near(r.Score, c.score, 0.001) {
				t.Errorf("score %v, want %v", r.Score, c.score)
			}
			if e := signal(r, SignalErrorRate); !e.Present || r.Errors.ToolFailures != c.x.Failures() {
				t.Errorf("error_rate %+v, %d tool failures; want present with %d", e, r.Errors.ToolFailures, c.x.Failures())
			}
		})
	}
}
