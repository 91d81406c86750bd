package fitness

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/execution"
)

// benchOutput is a realistic final answer of about 2 KB: headings, prose,
// a list, a Go block, a shell block, next steps.
const benchOutput = `## Fix: checkout total ignored the discount

The failing test ` + "`TestCheckoutTotal`" + ` expected 90.00 but got 100.00, because
` + "`Cart.Total`" + ` summed the line prices before the discount was applied. The
discount is now subtracted once, after the sum, so a cart with several
discounted lines is no longer discounted twice.

### What changed

- ` + "`cart/cart.go`" + `: ` + "`Total`" + ` applies ` + "`Discount`" + ` after summing the lines.
- ` + "`cart/cart_test.go`" + `: two table cases for empty carts and 100% discounts.
- ` + "`cart/doc.go`" + `: the rounding rule is documented.

` + "```go" + `
func (c *Cart) Total() Money {
	var sum Money
	for _, l := range c.Lines {
		sum += l.Price * Money(l.Qty)
	}
	return sum.Sub(c.Discount).Round(2)
}
` + "```" + `

### Verification

1. ` + "`go test ./cart/...`" + ` passes (14 tests).
2. ` + "`go vet ./...`" + ` is clean.
3. The checkout e2e suite passes locally.

` + "```sh" + `
go test ./cart/... && go vet ./...
` + "```" + `

The earlier failure came from the order of operations only; no other
caller of ` + "`Total`" + ` relied on the old behaviour, since every one of them
passes a cart without a discount.

### Why it broke

The discount change in the previous commit moved ` + "`Discount`" + ` from the line
level to the cart level, but ` + "`Total`" + ` kept subtracting it inside the loop.
With one line the result was right by accident; with two or more lines the
discount was applied once per line. The new table cases cover one, two and
ten lines, a zero discount and a discount larger than the total, which now
clamps to zero instead of going negative. The rounding happens once, at the
end, which matches what the payment provider expects; rounding per line
would drift by a cent on large carts.

| case | before | after |
|------|--------|-------|
| 1 line, 10% | 90.00 | 90.00 |
| 3 lines, 10% | 70.00 | 90.00 |

### Next steps

- I recommend adding a property test: the total never exceeds the sum of
  the line prices.
- Consider moving the rounding into ` + "`Money`" + ` so it cannot be forgotten.
- Before merging, run the full suite once more on CI.
- You may want to tell the payments team: totals for multi-line discounted
  carts were too low since the previous release.
`

// benchExecution returns a realistic execution (20 tool calls, 2 of them
// failed and 1 retry, a 2 KB answer) and the hook payload lines it was
// grouped from, one per event.
func benchExecution() (execution.Execution, [][]byte) {
	start := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	x := execution.Execution{
		ID: "s1/main/0", SessionID: "5f1c2e9a-1b7d-4c1e-9a51-0d1e2f3a4b5c", Skill: "fix-tests", Kind: "skill",
		SkillPath: "/home/dev/shop/.claude/skills/fix-tests/SKILL.md", Project: "/home/dev/shop", SkillVersion: "3f9a0c1b2d4e",
		Prompt:    "/fix-tests the checkout total test fails after the discount change, fix it and explain",
		StartedAt: start, EndedAt: start.Add(95 * time.Second), HasOutput: true, Output: benchOutput, Complete: true,
	}
	type spec struct{ name, input, resp string }
	specs := []spec{
		{"TodoWrite", `{"todos":[{"content":"reproduce","status":"in_progress"}]}`, "Todos updated"},
		{"Bash", `{"command":"go test ./cart/..."}`, "--- FAIL: TestCheckoutTotal (0.00s)\n    cart_test.go:41: got 100.00, want 90.00\nFAIL"},
		{"Grep", `{"pattern":"func \\(c \\*Cart\\) Total","path":"cart"}`, "cart/cart.go:57:func (c *Cart) Total() Money {"},
		{"Read", `{"file_path":"/home/dev/shop/cart/cart.go"}`, strings.Repeat("package cart // line of source\n", 10)},
		{"Read", `{"file_path":"/home/dev/shop/cart/cart_test.go"}`, strings.Repeat("func TestCheckoutTotal(t *testing.T) {}\n", 8)},
		{"Grep", `{"pattern":"Discount","path":"."}`, "cart/cart.go:12\ncart/discount.go:4\ncheckout/flow.go:88"},
		{"Read", `{"file_path":"/home/dev/shop/cart/discount.go"}`, strings.Repeat("type Discount Money\n", 6)},
		{"Glob", `{"pattern":"cart/*.go"}`, "cart/cart.go\ncart/cart_test.go\ncart/discount.go\ncart/doc.go"},
		{"Edit", `{"file_path":"/home/dev/shop/cart/cart.go","old_string":"sum -= ","new_string":"sum = sum.Sub("}`, "The file has been updated."},
		{"Bash", `{"command":"go build ./..."}`, "cart/cart.go:61:2: syntax error: unexpected newline"},
		{"Edit", `{"file_path":"/home/dev/shop/cart/cart.go","old_string":"sum.Sub(","new_string":"sum.Sub(c.Discount)"}`, "The file has been updated."},
		{"Bash", `{"command":"go build ./..."}`, ""},
		{"Bash", `{"command":"go test ./cart/..."}`, "ok  \tshop/cart\t0.012s"},
		{"Read", `{"file_path":"/home/dev/shop/checkout/flow.go"}`, strings.Repeat("func checkout() {}\n", 12)},
		{"Edit", `{"file_path":"/home/dev/shop/cart/cart_test.go","old_string":"}\n","new_string":"{\"empty\", ...}\n"}`, "The file has been updated."},
		{"Bash", `{"command":"go test ./cart/..."}`, "ok  \tshop/cart\t0.013s"},
		{"Read", `{"file_path":"/home/dev/shop/cart/doc.go"}`, "// Package cart holds carts."},
		{"Write", `{"file_path":"/home/dev/shop/cart/doc.go","content":"// Package cart ..."}`, "File created successfully"},
		{"Bash", `{"command":"go vet ./..."}`, ""},
		{"Bash", `{"command":"go test ./..."}`, "ok  \tshop/cart\t0.011s\nok  \tshop/checkout\t0.2s"},
	}
	base := map[string]any{"session_id": x.SessionID, "transcript_path": "/home/dev/.claude/projects/shop/" + x.SessionID + ".jsonl",
		"cwd": x.Project, "permission_mode": "default"}
	line := func(fields map[string]any) []byte {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range fields {
			m[k] = v
		}
		b, err := json.Marshal(m)
		if err != nil {
			panic(err)
		}
		return b
	}
	lines := [][]byte{line(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": x.Prompt})}
	at := start
	for i, s := range specs {
		id := fmt.Sprintf("toolu_%02d", i)
		c := execution.ToolCall{ID: id, Name: s.name, Done: true, Response: s.resp,
			Start: at, End: at.Add(2 * time.Second), DurationMS: 2000, HasDuration: true}
		post := "PostToolUse"
		if s.name == "Bash" {
			var in struct{ Command string }
			_ = json.Unmarshal([]byte(s.input), &in)
			c.Command, c.Kind = in.Command, execution.CommandKind(s.name, json.RawMessage(s.input))
		}
		if i == 1 || i == 9 { // the failing test run and the broken build
			c.Failed, c.Error, post = true, "Exit code 1\n"+s.resp, "PostToolUseFailure"
		}
		if i == 11 { // the build again, same input as the failed one
			c.Retry = true
		}
		x.Calls = append(x.Calls, c)
		lines = append(lines,
			line(map[string]any{"hook_event_name": "PreToolUse", "tool_name": s.name, "tool_input": json.RawMessage(s.input), "tool_use_id": id}),
			line(map[string]any{"hook_event_name": post, "tool_name": s.name, "tool_input": json.RawMessage(s.input), "tool_use_id": id,
				"tool_response": map[string]any{"stdout": s.resp, "stderr": "", "interrupted": false}, "duration_ms": 2000}))
		at = at.Add(4 * time.Second)
	}
	lines = append(lines, line(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": benchOutput}))
	x.Events = len(lines)
	return x, lines
}

// BenchmarkScore scores one realistic execution per iteration and reports
// events/s: how many hook events' worth of executions fitness can score.
func BenchmarkScore(b *testing.B) {
	x, lines := benchExecution()
	if r := Score(&x, medium); !r.Scored || x.Events != 42 || len(x.Calls) != 20 || len(x.Output) < 2048 {
		b.Fatalf("unrealistic bench execution: %d events, %d calls, %d bytes, %+v", x.Events, len(x.Calls), len(x.Output), r)
	}
	_ = lines
	b.ReportAllocs()
	for b.Loop() {
		Score(&x, medium)
	}
	b.ReportMetric(float64(x.Events*b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkScoreBaselineJSONUnmarshal decodes the same execution's 42 hook
// payload lines with a plain json.Unmarshal into map[string]any: the least
// work any reader of those events must do. BENCHMARKS.md reports
// BenchmarkScore as a ratio to it, measured in the same run.
func BenchmarkScoreBaselineJSONUnmarshal(b *testing.B) {
	_, lines := benchExecution()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			var m map[string]any
			if err := json.Unmarshal(l, &m); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(lines)*b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestBenchExecutionScore pins what the benchmark measures, so a change to
// the realistic execution is a visible change.
func TestBenchExecutionScore(t *testing.T) {
	x, lines := benchExecution()
	r := Score(&x, medium)
	if len(lines) != 42 || !r.Scored || r.Errors.ToolFailures != 0 || r.Errors.Retries != 1 || r.Outcome == nil || !r.Outcome.FixLoop {
		t.Fatalf("%d lines, %+v", len(lines), r)
	}
	for _, s := range r.Signals {
		if !s.Present {
			t.Errorf("%s absent in the benchmark execution", s.Signal)
		}
	}
	goldenJSON(t, "bench_execution", r)
}
