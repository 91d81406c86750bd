package fitness

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

var update = flag.Bool("update", false, "rewrite golden files")

var medium = Limits{MaxTime: 120 * time.Second, MaxTools: 15}

func calls(ok, failed int) []execution.ToolCall {
	var cs []execution.ToolCall
	for i := 0; i < ok; i++ {
		cs = append(cs, execution.ToolCall{Name: "Read", Done: true})
	}
	for i := 0; i < failed; i++ {
		cs = append(cs, execution.ToolCall{Name: "Bash", Done: true, Failed: true, Error: "Exit code 1"})
	}
	return cs
}

// find returns the row of a signal, and whether the result has one.
func find(r Result, name string) (Signal, bool) {
	for _, s := range r.Signals {
		if s.Signal == name {
			return s, true
		}
	}
	return Signal{}, false
}

func signal(r Result, name string) Signal {
	for _, s := range r.Signals {
		if s.Signal == name {
			return s
		}
	}
	panic(name)
}

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

// The rubric's worked examples.
func TestSeedExamples(t *testing.T) {
	t.Run("tool_success_9_of_10", func(t *testing.T) {
		r := Score(&execution.Execution{Calls: calls(9, 1)}, medium)
		if s := signal(r, SignalToolSuccess); !near(s.Value, 0.90, 1e-9) || s.Detail != "9/10 tool calls succeeded" {
			t.Errorf("%+v", s)
		}
	})
	t.Run("efficiency_time_60_of_120", func(t *testing.T) {
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		r := Score(&execution.Execution{StartedAt: t0, EndedAt: t0.Add(60 * time.Second), HasOutput: true, Output: "Done."}, medium)
		if s := signal(r, SignalEfficiency); !near(s.Value, 0.50, 1e-9) {
			t.Errorf("%+v", s)
		}
	})
	t.Run("efficiency_tools_8_of_15", func(t *testing.T) {
		r := Score(&execution.Execution{Calls: calls(8, 0)}, medium)
		if s := signal(r, SignalEfficiency); !near(s.Value, 0.4667, 0.0001) || !near(round(s.Value, 2), 0.47, 1e-9) {
			t.Errorf("%+v", s)
		}
	})
	t.Run("three_errors_component_0.70", func(t *testing.T) {
		cs := calls(7, 2)
		cs = append(cs, execution.ToolCall{Name: "Bash", Done: true, Retry: true})
		r := Score(&execution.Execution{Calls: cs}, medium)
		s := signal(r, SignalErrorRate)
		if !near(s.Value, 0.30, 1e-9) || !near(s.SubScore, 0.70, 1e-9) || r.Errors.Total != 3 {
			t.Errorf("%+v %+v", s, r.Errors)
		}
		if s.Detail != "3 errors: 2 failed calls, 1 retry" {
			t.Errorf("detail %q", s.Detail)
		}
	})
	t.Run("errors_capped_at_10", func(t *testing.T) {
		r := Score(&execution.Execution{Calls: calls(0, 14)}, medium)
		if s := signal(r, SignalErrorRate); s.Value != 1 || s.SubScore != 0 {
			t.Errorf("%+v", s)
		}
	})
}

func TestGradeBoundaries(t *testing.T) {
	cases := []struct {
		score float64
		grade Grade
	}{
		{100, APlus}, {90, APlus}, {89.99, A}, {80, A}, {79.99, B}, {70, B}, {69.99, C},
		{60, C}, {59.99, D}, {50, D}, {49.99, F}, {0, F},
	}
	for _, c := range cases {
		if g := GradeOf(c.score); g != c.grade {
			t.Errorf("GradeOf(%v) = %q, want %q", c.score, g, c.grade)
		}
	}
	if C.Advice() != "Average - mutation recommended" || D.Advice() != "Below average - mutation required" || F.Advice() != "Poor - consider rollback" {
		t.Error("advice text differs from the rubric")
	}
	for _, s := range []string{"A+", "a", " b ", "F"} {
		if _, err := ParseGrade(s); err != nil {
			t.Errorf("ParseGrade(%q): %v", s, err)
		}
	}
	if _, err := ParseGrade("E"); err == nil {
		t.Error("ParseGrade(E) accepted")
	}
	if APlus.Rank() <= A.Rank() || F.Rank() != 0 || Ungraded.Rank() >= 0 {
		t.Error("ranks out of order")
	}
}

func TestAbsentSignalsRenormalize(t *testing.T) {
	// Only tool calls: output_quality and structure are absent, the other
	// three weights are renormalised to sum to 1.
	r := Score(&execution.Execution{Calls: calls(3, 0)}, medium)
	if !r.Scored {
		t.Fatal("unscored")
	}
	sum := 0.0
	for _, s := range r.Signals {
		if s.Present {
			sum += s.EffectiveWeight
		}
	}
	if !near(sum, 1, 0.001) {
		t.Errorf("effective weights sum to %v", sum)
	}
	if signal(r, SignalOutput).Present || signal(r, SignalStructure).Present {
		t.Error("output signals present without output")
	}
	// (0.35*1 + 0.20*0.8 + 0.15*1) / 0.70 = 0.9429
	if !near(r.Score, 94.29, 0.001) {
		t.Errorf("score %v, want 94.29", r.Score)
	}
}

func TestAllAbsentIsUnscored(t *testing.T) {
	r := Score(&execution.Execution{}, medium)
	if r.Scored || r.Grade != Ungraded || r.Score != 0 || len(r.Signals) != 5 {
		t.Fatalf("%+v", r)
	}
}

func TestStructureFromAST(t *testing.T) {
	cases := []struct {
		name, out string
		want      float64
	}{
		{"all_three", "# Title\n\n- a\n- b\n\n```go\nx := 1\n```\n", 1.0},
		{"hash_in_code_is_not_heading", "```sh\n# not a heading\n```\n", 0.3},
		{"numbered_list", "Steps:\n\n1. item\n2. other\n", 0.3},
		{"setext_heading", "Title\n=====\n\ntext\n", 0.4},
		{"plain", "Just a sentence with #hashtag and 1.5 numbers.", 0},
		{"indented_code_not_fenced", "text\n\n    code here\n", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&execution.Execution{HasOutput: true, Output: c.out}, medium)
			if s := signal(r, SignalStructure); !s.Present || !near(s.Value, c.want, 1e-9) {
				t.Errorf("%+v, want %v", s, c.want)
			}
		})
	}
}

func TestErrorPatterns(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Traceback (most recent call last):\n  File x", []string{"traceback"}},
		{"panic: runtime error: index out of range", []string{"panic"}},
		{"Error: cannot find module", []string{"error_line"}},
		{"it raised a NullPointerException here", []string{"exception"}},
		{"bash: jq: command not found", []string{"command_not_found"}},
		{"open /etc/shadow: permission denied", []string{"permission_denied"}},
		{"fatal: not a git repository", []string{"fatal"}},
		{"Segmentation fault (core dumped)", []string{"segfault"}},
		{"--- FAIL: TestX (0.00s)", []string{"test_fail"}},
		{"I was unable to reproduce the bug.", []string{"gave_up"}},
		{"The build failed to link.", []string{"failed_to"}},
		// Not errors: prose about errors, code-like words, headings.
		{"I added error handling for the errors the API returns.", nil},
		{"The ExceptionHandler class is new.", nil},
		{"Errors are now wrapped with %w.", nil},
		{"All tests pass.", nil},
	}
	for _, c := range cases {
		got := ErrorPatterns(c.text)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("ErrorPatterns(%q) = %v, want %v", c.text, got, c.want)
		}
	}
	// Code blocks are not prose: an error inside one is not counted.
	r := Score(&execution.Execution{HasOutput: true, Output: "Handled it.\n\n```\npanic: boom\n```\n"}, medium)
	if r.Errors.OutputPatterns != 0 {
		t.Errorf("pattern inside code block counted: %+v", r.Errors)
	}
}

func TestOutputQualityItems(t *testing.T) {
	good := "The test failed because the total ignored the discount.\n\n```go\ntotal := price - discount\n```\n\nNext steps: run the suite."
	cases := []struct {
		name   string
		x      execution.Execution
		want   float64
		detail string
	}{
		{"complete_coding_answer", execution.Execution{Prompt: "fix the bug", HasOutput: true, Output: good}, 1.0, "completeness 1.00, accuracy 1.00"},
		// Not a coding task: the code item does not apply.
		{"non_coding_short", execution.Execution{Prompt: "what time zone is the server in", HasOutput: true, Output: "The server runs in UTC, set in /etc/timezone."}, 0, ""},
		{"invalid_json_block", execution.Execution{HasOutput: true, Output: "Here is the config you asked for, as JSON.\n\n```json\n{\"a\": 1,}\n```\n"}, -1, "lacks"},
		{"unclosed_fence", execution.Execution{HasOutput: true, Output: "Here is the start of the file I wrote.\n\n```go\nfunc main() {\n"}, -1, "follows format"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := signal(Score(&c.x, medium), SignalOutput)
			if !s.Present {
				t.Fatal("absent")
			}
			switch c.name {
			case "complete_coding_answer":
				if s.Value != c.want || s.Detail != c.detail {
					t.Errorf("%+v", s)
				}
			case "non_coding_short":
				// answer 0.3 ok, explanation 0.2 no, next 0.2 no over 0.7 = 0.4286;
				// accuracy: no errors 0.3 + format 0.3 over 0.6 = 1.
				if !near(s.Value, (0.3/0.7+1)/2, 0.0001) {
					t.Errorf("%+v", s)
				}
			default:
				if s.Value >= 1 || !contains(s.Detail, c.detail) {
					t.Errorf("%+v", s)
				}
			}
		})
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func TestSyntaxCheckLanguages(t *testing.T) {
	cases := []struct {
		lang, code string
		ok         bool
	}{
		{"json", `{"a": [1, 2]}`, true},
		{"json", `{a: 1}`, false},
		{"yaml", "a: 1\nb: [x, y]\n", true},
		{"yaml", "a: [1, 2\n", false},
		{"go", "package main\nfunc main() {}\n", true},
		{"go", "func f() int { return 1 }", true},
		{"go", "x := 1\nfmt.Println(x)", true},
		{"go", "func f( {", false},
		{"python", "def f(:", true}, // not judged
	}
	for _, c := range cases {
		ok, _ := fencesParse([]fence{{c.lang, c.code}})
		if ok != c.ok {
			t.Errorf("%s %q: ok=%v, want %v", c.lang, c.code, ok, c.ok)
		}
	}
}

func randomExecution(r *rand.Rand) execution.Execution {
	x := execution.Execution{}
	n := r.IntN(40)
	for i := 0; i < n; i++ {
		c := execution.ToolCall{Name: []string{"Read", "Bash", "Edit"}[r.IntN(3)], Done: true}
		switch r.IntN(6) {
		case 0:
			c.Failed = true
		case 1:
			c.Retry = true
		case 2:
			c.HasDuration, c.DurationMS = true, int64(r.IntN(400000))
		}
		x.Calls = append(x.Calls, c)
	}
	if r.IntN(2) == 0 {
		x.HasOutput = true
		x.Output = []string{"", "# H\n\n- a\n", "Error: boom", "plain words here and there because why not.", "```json\n{}\n```"}[r.IntN(5)]
	}
	x.Corrections = r.IntN(2)
	return x
}

func TestProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		x := randomExecution(r)
		res := Score(&x, medium)
		if !res.Scored {
			continue
		}
		if res.Score < 0 || res.Score > 100 {
			t.Fatalf("score %v out of range for %+v", res.Score, x)
		}
		sum, w := 0.0, 0.0
		for _, s := range res.Signals {
			if s.Present {
				sum += s.Contribution
				w += s.EffectiveWeight
				if s.SubScore < 0 || s.SubScore > 1 {
					t.Fatalf("%s sub-score %v", s.Signal, s.SubScore)
				}
			}
		}
		if !near(sum, res.Score, 0.0051) {
			t.Fatalf("contributions sum %v != score %v", sum, res.Score)
		}
		if !near(w, 1, 0.001) {
			t.Fatalf("effective weights sum %v", w)
		}
		// Adding a failed call never raises tool_success_rate.
		y := x
		y.Calls = append(append([]execution.ToolCall{}, x.Calls...), execution.ToolCall{Name: "Bash", Failed: true, Done: true})
		before, after := signal(res, SignalToolSuccess), signal(Score(&y, medium), SignalToolSuccess)
		if before.Present && after.Value > before.Value {
			t.Fatalf("failed call raised tool_success_rate %v -> %v", before.Value, after.Value)
		}
	}
}

// TestGoldenBreakdowns pins the full breakdown of representative
// executions; regenerate with -update after a rubric change (and bump
// RubricVersion).
func TestGoldenBreakdowns(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := map[string]execution.Execution{
		"seed_mixed": {Prompt: "fix the failing test", Calls: append(calls(9, 1), execution.ToolCall{Name: "Edit", Done: true}),
			StartedAt: t0, EndedAt: t0.Add(60 * time.Second), HasOutput: true,
			Output: "## Fix\n\nThe test failed because of an off-by-one.\n\n- changed `a.go`\n\n```go\nx := 1\n```\n\nNext steps: add a test."},
		"failure_heavy": {Calls: calls(1, 5), HasOutput: true, Output: "Error: could not build.\nI was unable to finish."},
		"text_only":     {HasOutput: true, Output: "Paris is the capital of France, and it has been since 987."},
	}
	for name, x := range cases {
		t.Run(name, func(t *testing.T) {
			got, _ := json.MarshalIndent(Score(&x, medium), "", "  ")
			p := filepath.Join("testdata", name+".golden.json")
			if *update {
				os.WriteFile(p, append(got, '\n'), 0o644)
			}
			want, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if string(want) != string(got)+"\n" {
				t.Errorf("breakdown differs from %s:\n%s", p, got)
			}
		})
	}
}

func FuzzOutput(f *testing.F) {
	for _, s := range []string{"# h\n- a\n```go\nx\n```", "```json\n{", "~~~\n", "1. a\n\n    code", "\x00\xff", "> quote\n# h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		x := execution.Execution{HasOutput: true, Output: out, Calls: calls(1, 1)}
		r := Score(&x, medium)
		if !r.Scored || r.Score < 0 || r.Score > 100 {
			t.Fatalf("%+v", r)
		}
	})
}
