package claudecode

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// txUsage is what the fake server answers for each step of the transcript
// scenario: chosen numbers, cache tokens included, and one model.
var txUsage = []fakeclaude.Usage{
	{Input: 1200, Output: 40, CacheRead: 5000, CacheCreation: 300},
	{Input: 70, Output: 15, CacheRead: 6100, CacheCreation: 0},
	{Input: 90, Output: 12, CacheRead: 6200, CacheCreation: 50},
	{Input: 110, Output: 60, CacheRead: 6300, CacheCreation: 0},
}

const txModel = "claude-sonnet-test-1"

// txPrices: $3 input, $15 output, $0.30 cache read, $3.75 cache write per
// million tokens.
const txConfig = "pricing:\n  models:\n    claude-sonnet-test: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}\n"

// usageJSON is an execution's usage as sepad prints it.
type usageJSON struct {
	InputTokens         int64    `json:"input_tokens"`
	OutputTokens        int64    `json:"output_tokens"`
	CacheReadTokens     int64    `json:"cache_read_tokens"`
	CacheCreationTokens int64    `json:"cache_creation_tokens"`
	Messages            int      `json:"messages"`
	Models              []string `json:"models"`
	CostNanoUSD         int64    `json:"cost_nano_usd"`
	CostKnown           bool     `json:"cost_known"`
}

type txScored struct {
	scored
	Usage       *usageJSON `json:"usage"`
	UsageReason string     `json:"usage_reason"`
}

// TestTranscriptTokensCostAndHiddenFailures runs a session on the real
// client with two calls refused before any hook (a Bash call without its
// required command: InputValidationError; an unknown tool) beside a
// success and a failure the hooks report. `sepad score` and a live `sepad
// run` both read the transcript: exact tokens per execution from the fake
// server's usage, the cost for the configured price table, and the two
// refused calls counted as failures, with a lower score than without the
// transcript.
func TestTranscriptTokensCostAndHiddenFailures(t *testing.T) {
	for _, c := range clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			e := newEnv(t, c)
			cfg := filepath.Join(e.Root, "sepa.yaml")
			if err := os.WriteFile(cfg, []byte(txConfig+"collector:\n  idle_timeout: 2s\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			e.Env = append(e.Env, "SEPA_CONFIG="+cfg)
			d := e.startDaemon()
			e.API.Set("tx", fakeclaude.Script{
				{Text: "Let me look.", Tools: []fakeclaude.Tool{bash("echo hi"), {Name: "Bash", Input: map[string]any{"description": "no command"}}}, Usage: &txUsage[0], Model: txModel},
				{Tools: []fakeclaude.Tool{{Name: "NoSuchTool", Input: map[string]any{"x": 1}}}, Usage: &txUsage[1], Model: txModel},
				{Tools: []fakeclaude.Tool{bash("exit 3")}, Usage: &txUsage[2], Model: txModel},
				{Text: answer, Usage: &txUsage[3], Model: txModel},
			})
			e.claude("-p", "look around @@tx@@")
			want := txWant()

			spool := filepath.Join(e.State, "events.jsonl")
			with := scoreTx(t, e, spool)
			without := scoreTx(t, e, spool, "--no-transcripts")
			if len(with) != 1 || len(without) != 1 {
				t.Fatalf("want one execution each way, got %d and %d", len(with), len(without))
			}
			x, y := with[0], without[0]
			if x.Usage == nil || !sameUsage(*x.Usage, want) {
				t.Errorf("sepad score usage %+v (%s), want %+v", x.Usage, x.UsageReason, want)
			}
			if x.ToolCalls != 4 || x.ToolFailures != 3 || y.ToolCalls != 2 || y.ToolFailures != 1 {
				t.Errorf("calls/failures with the transcript %d/%d, without %d/%d; want 4/3 and 2/1", x.ToolCalls, x.ToolFailures, y.ToolCalls, y.ToolFailures)
			}
			if !(x.Score < y.Score) {
				t.Errorf("score with the refused calls %.2f, without %.2f: want lower", x.Score, y.Score)
			}
			t.Logf("Claude Code %s: %d tokens, $%.6f; score %.2f with the transcript, %.2f without", c.Version,
				want.InputTokens+want.OutputTokens+want.CacheReadTokens+want.CacheCreationTokens, float64(want.CostNanoUSD)/1e9, x.Score, y.Score)

			// The daemon read the same transcript live, when the
			// execution closed.
			got, ok := waitExplain(t, e, x.ID)
			if log := d.stop(); strings.Contains(log, "level=ERROR") {
				t.Errorf("the daemon logged an error:\n%s", log)
			}
			if !ok {
				out, _, _ := e.sepad("executions", "--json", "--home", e.State)
				t.Fatalf("the daemon never stored %s; it has:\n%s\nits log:\n%s", x.ID, out, d.log.String())
			}
			if got.Execution.Usage == nil || !sameUsage(*got.Execution.Usage, want) {
				t.Errorf("daemon usage %+v (%s), want %+v", got.Execution.Usage, got.Execution.UsageReason, want)
			}
			if got.Score.Errors.TranscriptFailures != 2 || got.Score.Score == nil || *got.Score.Score != x.Score {
				t.Errorf("daemon score %v errors %+v, sepad score %.2f", got.Score.Score, got.Score.Errors, x.Score)
			}
			sources := 0
			for _, cl := range got.Calls {
				if cl.Source == "transcript" && !cl.OK {
					sources++
				}
			}
			if sources != 2 {
				t.Errorf("explain lists %d calls from the transcript, want 2: %+v", sources, got.Calls)
			}
			out, _, code := e.sepad("grades", "--json", "--home", e.State)
			var g struct {
				Grades []struct {
					Skill  string `json:"skill"`
					Tokens *struct {
						N       int     `json:"n"`
						Total   int64   `json:"total"`
						CostUSD float64 `json:"cost_usd"`
					} `json:"tokens"`
				} `json:"grades"`
			}
			if code != 0 || json.Unmarshal([]byte(out), &g) != nil || len(g.Grades) != 1 || g.Grades[0].Tokens == nil ||
				g.Grades[0].Tokens.Total != want.InputTokens+want.OutputTokens+want.CacheReadTokens+want.CacheCreationTokens ||
				math.Abs(g.Grades[0].Tokens.CostUSD-float64(want.CostNanoUSD)/1e9) > 1e-6 {
				t.Errorf("sepad grades (exit %d):\n%s", code, out)
			}
		})
	}
}

// txWant is the usage of all of txUsage's messages, priced by txConfig.
func txWant() usageJSON {
	var w usageJSON
	for _, u := range txUsage {
		w.InputTokens += int64(u.Input)
		w.OutputTokens += int64(u.Output)
		w.CacheReadTokens += int64(u.CacheRead)
		w.CacheCreationTokens += int64(u.CacheCreation)
	}
	w.Messages, w.Models, w.CostKnown = len(txUsage), []string{txModel}, true
	// $ per Mtok = 1000 nano-$ per token.
	w.CostNanoUSD = w.InputTokens*3000 + w.OutputTokens*15000 + w.CacheReadTokens*300 + w.CacheCreationTokens*3750
	return w
}

func sameUsage(a, b usageJSON) bool {
	return a.InputTokens == b.InputTokens && a.OutputTokens == b.OutputTokens && a.CacheReadTokens == b.CacheReadTokens &&
		a.CacheCreationTokens == b.CacheCreationTokens && a.Messages == b.Messages && strings.Join(a.Models, ",") == strings.Join(b.Models, ",") &&
		a.CostNanoUSD == b.CostNanoUSD && a.CostKnown == b.CostKnown
}

// scoreTx runs `sepad score --json` in the scratch machine's environment
// (its HOME, so its Claude Code directory and transcripts).
func scoreTx(t *testing.T, e *env, spool string, args ...string) []txScored {
	t.Helper()
	out, errOut, code := e.sepad(append(append([]string{"score", "--json"}, args...), spool)...)
	if code > 1 {
		t.Fatalf("sepad score: exit %d\n%s", code, errOut)
	}
	var doc struct {
		Executions []txScored `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("sepad score --json: %v\n%s", err, out)
	}
	return doc.Executions
}

type txExplain struct {
	Execution struct {
		Usage       *usageJSON `json:"usage"`
		UsageReason string     `json:"usage_reason"`
	} `json:"execution"`
	Calls []struct {
		Tool   string `json:"tool"`
		OK     bool   `json:"ok"`
		Source string `json:"source"`
	} `json:"calls"`
	Score struct {
		Score  *float64 `json:"score"`
		Errors struct {
			TranscriptFailures int `json:"transcript_failures"`
		} `json:"errors"`
	} `json:"score"`
}

// waitExplain waits (at most a minute: the machine may be loaded) until
// the daemon stored the execution and returns `sepad explain ID --json`.
func waitExplain(t *testing.T, e *env, id string) (txExplain, bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		out, _, code := e.sepad("explain", id, "--json", "--home", e.State)
		if code == 0 {
			var x txExplain
			if err := json.Unmarshal([]byte(out), &x); err != nil {
				t.Fatalf("sepad explain --json: %v\n%s", err, out)
			}
			return x, true
		}
		if time.Now().After(deadline) {
			return txExplain{}, false
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// TestForkSkillTokens: a `context: fork` skill's model calls are written
// in its subagent's transcript, not the session's. The skill's execution
// counts both: the session's messages of the turn and the fork's, each
// token once.
func TestForkSkillTokens(t *testing.T) {
	for _, c := range clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			e := newEnv(t, c)
			cfg := filepath.Join(e.Root, "sepa.yaml")
			if err := os.WriteFile(cfg, []byte(txConfig), 0o600); err != nil {
				t.Fatal(err)
			}
			e.Env = append(e.Env, "SEPA_CONFIG="+cfg)
			e.write(".claude/skills/audit/SKILL.md", "---\nname: audit\ndescription: Audit the repo. Use when asked to audit.\ncontext: fork\nagent: general-purpose\n---\n# Audit\n\nCheck everything. @@forktx@@\n")
			e.API.Set("forkmain", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("audit")}, Usage: &txUsage[0], Model: txModel},
				{Text: answer, Usage: &txUsage[1], Model: txModel},
			})
			e.API.Set("forktx", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo auditing")}, Usage: &txUsage[2], Model: txModel},
				{Text: "## Audit\n\n- one finding\n", Usage: &txUsage[3], Model: txModel},
			})
			e.claude("-p", "audit please @@forkmain@@")
			want := txWant()
			xs := scoreTx(t, e, filepath.Join(e.State, "events.jsonl"))
			var audit *txScored
			for i := range xs {
				if xs[i].Skill == "audit" {
					audit = &xs[i]
				}
			}
			if audit == nil {
				t.Fatalf("no audit execution: %+v", xs)
			}
			if audit.Usage == nil || !sameUsage(*audit.Usage, want) {
				t.Errorf("audit usage %+v (%s), want %+v (the session's two messages and the fork's two)", audit.Usage, audit.UsageReason, want)
			}
			for _, x := range xs {
				if x.Skill != "audit" && x.Usage != nil && x.Usage.Messages > 0 {
					t.Errorf("%s took %d messages of the turn: %+v", x.Skill, x.Usage.Messages, x.Usage)
				}
			}
		})
	}
}
