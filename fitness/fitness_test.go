package fitness

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// medium are the limits of config/max_expected.yaml's medium_task.
var medium = Limits{MaxTime: 120 * time.Second, MaxTools: 15}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// calls returns ok successful Read calls followed by failed failed Bash
// calls.
func calls(ok, failed int) []execution.ToolCall {
	var cs []execution.ToolCall
	for range ok {
		cs = append(cs, execution.ToolCall{Name: "Read", Done: true})
	}
	for range failed {
		cs = append(cs, execution.ToolCall{Name: "Bash", Done: true, Failed: true, Error: "Exit code 1"})
	}
	return cs
}

func sig(t testing.TB, r Result, name string) Signal {
	t.Helper()
	for _, s := range r.Signals {
		if s.Signal == name {
			return s
		}
	}
	t.Fatalf("no signal %q in %+v", name, r.Signals)
	return Signal{}
}

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

// golden compares got with testdata/golden/name.json, rewriting it under
// -update.
func golden(t *testing.T, name string, got any) {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, '\n')
	p := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (regenerate with go test ./fitness -update)", err)
	}
	if !bytes.Equal(want, b) {
		t.Errorf("result differs from %s (regenerate with -update if the rubric changed, and bump RubricVersion):\n%s", p, b)
	}
}

// TestSeedExamples reproduces the worked examples of
// sepa-scoring-rubric.md; the full breakdowns are pinned in golden files.
func TestSeedExamples(t *testing.T) {
	cases := []struct {
		name   string
		x      execution.Execution
		signal string
		value  float64 // the seed's figure
		eps    float64
		sub    float64
		detail string
	}{
		{
			name: "tool_success_9_of_10", signal: SignalToolSuccess, value: 0.90, sub: 0.90, eps: 1e-12,
			// Read 5/5, Write 2/2, Bash 2/3.
			x: execution.Execution{Calls: append(append(calls(5, 0),
				execution.ToolCall{Name: "Write", Done: true}, execution.ToolCall{Name: "Write", Done: true},
				execution.ToolCall{Name: "Bash", Done: true}, execution.ToolCall{Name: "Bash", Done: true}),
				calls(0, 1)...)},
			detail: "9/10 tool calls succeeded",
		},
		{
			name: "efficiency_time_60s_of_120s", signal: SignalEfficiency, value: 0.50, sub: 0.50, eps: 1e-12,
			x:      execution.Execution{StartedAt: t0, EndedAt: t0.Add(60 * time.Second), HasOutput: true, Output: "Done, the cache is cleared."},
			detail: "60s of 120s (0.50)",
		},
		{
			name: "efficiency_tools_8_of_15", signal: SignalEfficiency, value: 0.4667, sub: 7.0 / 15, eps: 0.00005,
			x:      execution.Execution{Calls: calls(8, 0)},
			detail: "8 of 15 tools (0.47)",
		},
		{
			name: "efficiency_60s_and_8_tools_mean", signal: SignalEfficiency, value: (0.5 + 7.0/15) / 2, sub: (0.5 + 7.0/15) / 2, eps: 1e-12,
			x:      execution.Execution{StartedAt: t0, EndedAt: t0.Add(60 * time.Second), Calls: calls(8, 0)},
			detail: "60s of 120s (0.50), 8 of 15 tools (0.47): mean 0.48",
		},
		{
			name: "three_errors_component_0.70", signal: SignalErrorRate, value: 0.30, sub: 0.70, eps: 1e-12,
			// Bash failed twice, then one retry (which succeeded).
			x: execution.Execution{Calls: append(calls(7, 2),
				execution.ToolCall{Name: "Bash", Done: true, Retry: true})},
			detail: "3 errors: 2 failed calls, 1 retry",
		},
		{
			name: "errors_capped_at_10", signal: SignalErrorRate, value: 1, sub: 0, eps: 0,
			x:      execution.Execution{Calls: calls(0, 12), Corrections: 1},
			detail: "13 errors: 12 failed calls, 1 user correction",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, medium)
			s := sig(t, r, c.signal)
			if !s.Present || !near(s.Value, c.value, c.eps) || !near(s.SubScore, c.sub, 1e-12) {
				t.Errorf("%s = %+v, want value %v sub-score %v", c.signal, s, c.value, c.sub)
			}
			if s.Detail != c.detail {
				t.Errorf("detail %q, want %q", s.Detail, c.detail)
			}
			golden(t, "seed_"+c.name, r)
		})
	}
	// The seed rounds 8/15 to 0.47.
	if v := math.Round(7.0/15*100) / 100; v != 0.47 {
		t.Errorf("8 of 15 tools rounds to %v", v)
	}
}

// TestSeedFormula checks the weighted sum on an execution where every
// signal is present, against the seed's formula written out by hand.
func TestSeedFormula(t *testing.T) {
	x := execution.Execution{
		Prompt:    "fix the failing test in cart.go",
		StartedAt: t0, EndedAt: t0.Add(60 * time.Second),
		Calls: append(append(calls(7, 2), execution.ToolCall{Name: "Bash", Done: true, Retry: true}),
			execution.ToolCall{Name: "Edit", Done: true}),
		HasOutput: true,
		Output: "## Fix\n\nThe test failed because the total ignored the discount.\n\n" +
			"- changed `cart.go`\n\n```go\ntotal := price - discount\n```\n\nNext steps: run the suite.\n",
	}
	r := Score(&x, medium)
	ts := 9.0 / 11
	eff := ((1 - 60.0/120) + (1 - 11.0/15)) / 2
	want := math.Round((0.35*ts+0.25*1+0.20*eff+0.15*(1-0.3)+0.05*1)*100*100) / 100
	if !r.Scored || r.Score != want {
		t.Fatalf("score %v, want %v: %+v", r.Score, want, r.Signals)
	}
	if r.Grade != GradeOf(want) {
		t.Errorf("grade %q", r.Grade)
	}
	golden(t, "formula_all_present", r)
}

func TestAbsentSignals(t *testing.T) {
	cases := []struct {
		name    string
		x       execution.Execution
		lim     Limits
		present string // 5 letters, T/F per signal in rubric order
		score   float64
	}{
		// (0.35*1 + 0.20*(1-3/15) + 0.15*1) / 0.70
		{"tools_only", execution.Execution{Calls: calls(3, 0)}, medium, "TFTTF", 94.29},
		// Output only: tool success and efficiency absent.
		{"output_only", execution.Execution{HasOutput: true, Output: "The server runs in UTC, set in /etc/timezone."}, medium, "FTFTT", -1},
		// HasOutput with blank text is no output.
		{"blank_output", execution.Execution{HasOutput: true, Output: " \n\t"}, medium, "FFFFF", 0},
		// Output text without HasOutput is ignored: the collector says
		// whether a final message exists.
		{"output_without_flag", execution.Execution{Output: "stale"}, medium, "FFFFF", 0},
		// A user correction alone is evidence for error_rate only.
		{"correction_only", execution.Execution{Corrections: 2}, medium, "FFFTF", 80},
		// Timing alone: efficiency only.
		{"timing_only", execution.Execution{StartedAt: t0, EndedAt: t0.Add(30 * time.Second)}, medium, "FFTFF", 75},
		// No limits configured: efficiency absent even with timing and calls.
		{"no_limits", execution.Execution{StartedAt: t0, EndedAt: t0.Add(30 * time.Second), Calls: calls(2, 0)}, Limits{}, "TFFTF", 100},
		// Zero calls do not make a tool-efficiency of 1.
		{"time_limit_only", execution.Execution{StartedAt: t0, EndedAt: t0.Add(90 * time.Second)}, Limits{MaxTime: 120 * time.Second}, "FFTFF", 25},
		{"nothing", execution.Execution{}, medium, "FFFFF", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, c.lim)
			var got strings.Builder
			wsum := 0.0
			for _, s := range r.Signals {
				if s.Present {
					got.WriteByte('T')
					wsum += s.EffectiveWeight
				} else {
					got.WriteByte('F')
					if s.EffectiveWeight != 0 || s.Contribution != 0 {
						t.Errorf("absent %s has weight %v, contribution %v", s.Signal, s.EffectiveWeight, s.Contribution)
					}
				}
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
			if !r.Scored || !near(wsum, 1, 1e-12) {
				t.Errorf("scored %v, effective weights sum %v", r.Scored, wsum)
			}
			if c.score >= 0 && r.Score != c.score {
				t.Errorf("score %v, want %v", r.Score, c.score)
			}
		})
	}
}

func TestResultShape(t *testing.T) {
	r := Score(nil, medium)
	if r.Scored || len(r.Signals) != 5 || r.RubricVersion != RubricVersion {
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
	for _, key := range []string{`"rubric_version":"1.0.0"`, `"scored":true`, `"sub_score":`, `"effective_weight":`,
		`"contribution":`, `"errors":{"tool_failures":1,"retries":0,"output_patterns":0,"corrections":0,"total":1}`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s: %s", key, b)
		}
	}
}

// TestContributionsSumToScore covers the rounding cases: thirds, and
// contributions that all round down.
func TestContributionsSumToScore(t *testing.T) {
	cases := []struct {
		name string
		x    execution.Execution
	}{
		{"thirds", execution.Execution{Calls: calls(1, 2)}},
		{"sevenths", execution.Execution{Calls: calls(4, 3), StartedAt: t0, EndedAt: t0.Add(37 * time.Second)}},
		{"all_zero", execution.Execution{Calls: calls(0, 20), StartedAt: t0, EndedAt: t0.Add(time.Hour)}},
		{"perfect", execution.Execution{StartedAt: t0, EndedAt: t0.Add(time.Millisecond)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, medium)
			sum := 0.0
			for _, s := range r.Signals {
				sum += s.Contribution
				if s.Present && !near(s.Contribution, s.SubScore*s.EffectiveWeight*100, 0.01+1e-9) {
					t.Errorf("%s contribution %v, exact %v", s.Signal, s.Contribution, s.SubScore*s.EffectiveWeight*100)
				}
			}
			if !near(sum, r.Score, 1e-9) {
				t.Errorf("contributions sum %v, score %v", sum, r.Score)
			}
			if r.Score != math.Round(r.Score*100)/100 {
				t.Errorf("score %v has more than 2 decimals", r.Score)
			}
		})
	}
}

func TestScoreDoesNotModifyInput(t *testing.T) {
	x := execution.Execution{Prompt: "fix it", Calls: calls(2, 1), HasOutput: true, Output: "# Done\n\n- a\n", Corrections: -3}
	before, _ := json.Marshal(x)
	r1, r2 := Score(&x, medium), Score(&x, medium)
	after, _ := json.Marshal(x)
	if string(before) != string(after) {
		t.Error("Score modified its input")
	}
	b1, _ := json.Marshal(r1)
	b2, _ := json.Marshal(r2)
	if string(b1) != string(b2) {
		t.Error("Score is not deterministic")
	}
	if r1.Errors.Corrections != 0 {
		t.Errorf("negative corrections counted as %d", r1.Errors.Corrections)
	}
}

func TestEfficiencyClamps(t *testing.T) {
	cases := []struct {
		name   string
		x      execution.Execution
		want   float64
		detail string
	}{
		{"over_time_and_tools", execution.Execution{StartedAt: t0, EndedAt: t0.Add(5 * time.Minute), Calls: calls(20, 0)}, 0,
			"300s of 120s (0.00), 20 of 15 tools (0.00): mean 0.00"},
		{"tool_durations_when_no_span", execution.Execution{Calls: []execution.ToolCall{
			{Name: "Bash", HasDuration: true, DurationMS: 1500}, {Name: "Read", HasDuration: true, DurationMS: 500}}},
			((1 - 2.0/120) + (1 - 2.0/15)) / 2, "2s of 120s (0.98), 2 of 15 tools (0.87): mean 0.93"},
		{"sub_second", execution.Execution{StartedAt: t0, EndedAt: t0.Add(850 * time.Millisecond)}, 1 - 0.85/120, "850ms of 120s (0.99)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := sig(t, Score(&c.x, medium), SignalEfficiency)
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
		{"failed_retry_counts_twice", execution.Execution{Calls: []execution.ToolCall{
			{Name: "Bash", Failed: true}, {Name: "Bash", Failed: true, Retry: true}}}, 3, "3 errors: 2 failed calls, 1 retry"},
		{"interrupted_and_unanswered", execution.Execution{Calls: []execution.ToolCall{
			{Name: "Bash", Interrupted: true}, {Name: "Read", NoPost: true}, {Name: "Read", Done: true}}}, 2, "2 errors: 2 failed calls"},
		{"output_patterns_named", execution.Execution{HasOutput: true,
			Output: "Traceback (most recent call last):\n  File \"x.py\"\nValueError: bad\n\nI was unable to fix it."}, 3,
			"3 errors: 3 error patterns in the output (traceback, exception, gave_up)"},
		{"output_patterns_capped", execution.Execution{HasOutput: true,
			Output: "Traceback (most recent call last):\nValueError: bad\nError: x\nfatal: y\nSegmentation fault\n\nI was unable to fix it."}, 3,
			"3 errors: 3 error patterns in the output (traceback, error_line, exception, fatal, segfault, gave_up; capped at 3)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&c.x, medium)
			s := sig(t, r, SignalErrorRate)
			if r.Errors.Total != c.total || s.Detail != c.detail || !near(s.Value, float64(c.total)/10, 1e-12) {
				t.Errorf("errors %+v, signal %+v; want total %d, detail %q", r.Errors, s, c.total, c.detail)
			}
		})
	}
}
