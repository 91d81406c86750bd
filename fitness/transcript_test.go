package fitness

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
)

// Calls refused before any hook (found in the transcript, rubric 1.2.0)
// count as failed calls, say where they came from, and lower the score.
func TestTranscriptFailures(t *testing.T) {
	hooks := execution.Execution{Calls: []execution.ToolCall{{ID: "a", Name: "Bash", Done: true}, {ID: "b", Name: "Read", Done: true}},
		Output: "The server runs in UTC, set in /etc/timezone.", HasOutput: true}
	with := hooks
	with.Calls = append(append([]execution.ToolCall(nil), hooks.Calls...),
		execution.ToolCall{ID: "c", Name: "Bash", Failed: true, Done: true, Source: "transcript"},
		execution.ToolCall{ID: "d", Name: "NoSuchTool", Failed: true, Done: true, Source: "transcript"})
	lim := Limits{MaxTools: 15}
	a, b := Score(&hooks, lim), Score(&with, lim)
	if b.Score >= a.Score {
		t.Errorf("hidden failures did not lower the score: %.2f then %.2f", a.Score, b.Score)
	}
	if b.Errors.ToolFailures != 2 || b.Errors.TranscriptFailures != 2 || b.Errors.Total != 2 {
		t.Errorf("errors %+v", b.Errors)
	}
	if d := b.Signals[0].Detail; d != "2/4 tool calls succeeded (2 refused before any hook, seen in the transcript)" {
		t.Errorf("tool detail %q", d)
	}
	if d := b.Signals[3].Detail; !strings.Contains(d, "2 failed calls (2 seen only in the transcript)") {
		t.Errorf("error detail %q", d)
	}
	if a.Errors.TranscriptFailures != 0 || strings.Contains(a.Signals[0].Detail, "transcript") {
		t.Errorf("no hidden failures: %+v %q", a.Errors, a.Signals[0].Detail)
	}
}

// With max_expected tokens set, the tokens an execution used are a third
// part of efficiency; without a limit, or without usage, nothing changes.
func TestEfficiencyTokens(t *testing.T) {
	x := execution.Execution{Calls: []execution.ToolCall{{ID: "a", Name: "Bash", Done: true}, {ID: "b", Name: "Read", Done: true}, {ID: "c", Name: "Read", Done: true}},
		Usage: &execution.Usage{InputTokens: 1000, OutputTokens: 500, CacheReadTokens: 8000, CacheCreationTokens: 500}}
	off := Score(&x, Limits{MaxTools: 15})
	on := Score(&x, Limits{MaxTools: 15, MaxTokens: 40000})
	if e := off.Signals[2]; e.Value != 0.8 || e.Detail != "3 of 15 tools (0.80)" {
		t.Errorf("off: %v %q", e.Value, e.Detail)
	}
	// tools 1 - 3/15 = 0.8, tokens 1 - 10000/40000 = 0.75: mean 0.775.
	if e := on.Signals[2]; e.Value != 0.775 || e.Detail != "3 of 15 tools (0.80), 10000 of 40000 tokens (0.75), mean" {
		t.Errorf("on: %v %q", e.Value, e.Detail)
	}
	x.Usage = nil
	if e := Score(&x, Limits{MaxTools: 15, MaxTokens: 40000}).Signals[2]; e.Value != 0.8 {
		t.Errorf("no usage: %v %q", e.Value, e.Detail)
	}
}
