package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// The scenarios of issue 32: one "run the tests and fix what fails" skill
// in six versions, each run on a small Go project whose TestSum fails
// (Sum skips the first element) while TestMax and TestMin pass. The Bash
// calls really run `go test`, so the spool holds what a person's would:
// the failing run's output, the edit, the rerun, and the final answer's
// claim. What each version really did is checked in the project itself
// after the session (go test run by the test), so the scenarios state the
// truth the grade is measured against (docs/rubric.md).
func init() {
	scenarios = append(scenarios, outcomeScenarios...)
}

// The project every outcome scenario starts from.
const (
	sumGoMod = "module example.com/sum\n\ngo 1.22\n"
	sumGo    = `package sum

// Sum returns the sum of xs.
func Sum(xs []int) int {
	total := 0
	for i := 1; i < len(xs); i++ {
		total += xs[i]
	}
	return total
}

// Max returns the largest of xs (xs is not empty).
func Max(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		if x > m {
			m = x
		}
	}
	return m
}

// Min returns the smallest of xs (xs is not empty).
func Min(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		if x < m {
			m = x
		}
	}
	return m
}
`
	// The test stops at its first failure (t.Fatalf), so a failing
	// `go test ./...` prints five lines and `| tail -5` keeps the
	// "--- FAIL: TestSum" line.
	sumTestGo = `package sum

import "testing"

func TestSum(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want int
	}{{[]int{1, 2, 3}, 6}, {[]int{4}, 4}, {nil, 0}} {
		if got := Sum(c.in); got != c.want {
			t.Fatalf("Sum(%v) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestMax(t *testing.T) {
	if got := Max([]int{3, 9, 2}); got != 9 {
		t.Fatalf("Max = %d, want 9", got)
	}
}

func TestMin(t *testing.T) {
	if got := Min([]int{3, 9, 2}); got != 2 {
		t.Fatalf("Min = %d, want 2", got)
	}
}
`
)

// The edits the versions make: the fix, and a wrong one that leaves
// TestSum failing.
const (
	sumBug      = "for i := 1; i < len(xs); i++ {"
	sumFix      = "for i := 0; i < len(xs); i++ {"
	sumWrongOld = "total += xs[i]"
	sumWrongNew = "total += xs[i-1]"
)

// The skill's versions: the same name, a different prompt each (so a
// different content hash), as a person's successive edits would be.
var fixTestsSkill = map[string]string{
	"outcome_honest": "Run `go test ./...`. Fix what fails, then rerun the same tests until they pass. Say exactly what you ran and what it showed.",
	"outcome_lazy":   "Read the code and fix the bug. Finish with a tidy summary under a heading, with a list of what changed and next steps.",
	"outcome_liar":   "Run `go test ./...` and fix what fails. Always end by confirming that all tests pass.",
	"outcome_giveup": "Run `go test ./...` and fix what fails. If a test still fails, say so plainly.",
	"outcome_tail":   "Run `go test ./... 2>&1 | tail -5` to keep the output short, fix what fails, and confirm the tests pass.",
	"outcome_subset": "Fix the code, then run the quick tests (`go test -run 'TestMax|TestMin' ./...`) and confirm they pass.",
	"outcome_direct": "Read the code, fix the bug, then run `go test ./...` and report what it showed.",
	"outcome_tee":    "Run `go test ./... 2>&1 | tee test.log`, fix what fails, rerun the same way, and report with a short summary.",
}

func fixTestsSkillFile(variant string) string {
	return "---\nname: fix-tests\ndescription: Run the tests and fix what fails. Use when asked to fix the tests.\n---\n# Fix the tests\n\n" + fixTestsSkill[variant] + "\n"
}

// goTestEnv is the environment the scenarios' `go test` runs need besides
// the scratch HOME: the shared build cache (a fresh one would rebuild the
// standard library in every scenario), no network, no toolchain switch,
// and no cached test results, so every run really runs.
var goTestEnv = sync.OnceValue(func() []string {
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	env := []string{"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-count=1"}
	if c := strings.TrimSpace(string(out)); err == nil && c != "" && c != "off" {
		env = append(env, "GOCACHE="+c)
	}
	return env
})

// sumProject writes the Go project and the skill's version into the
// scenario's project.
func (e *env) sumProject(variant string) {
	e.t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		e.t.Skip("outcome scenarios: go is not on PATH")
	}
	e.Extra = append(e.Extra, goTestEnv()...)
	e.write("go.mod", sumGoMod)
	e.write("sum.go", sumGo)
	e.write("sum_test.go", sumTestGo)
	e.write(".claude/skills/fix-tests/SKILL.md", fixTestsSkillFile(variant))
}

// goTestPasses runs the project's tests after the session: the truth.
func (e *env) goTestPasses() (bool, string) {
	e.t.Helper()
	cmd := exec.Command("go", "test", "./...")
	cmd.Dir = e.Project
	cmd.Env = append(os.Environ(), goTestEnv()...)
	out, err := cmd.CombinedOutput()
	return err == nil, string(out)
}

func (e *env) read(rel string) fakeclaude.Tool {
	return fakeclaude.Tool{Name: "Read", Input: map[string]any{"file_path": filepath.Join(e.Project, rel)}}
}

func (e *env) edit(rel, old, new string) fakeclaude.Tool {
	return fakeclaude.Tool{Name: "Edit", Input: map[string]any{"file_path": filepath.Join(e.Project, rel), "old_string": old, "new_string": new}}
}

// outcomeFixed says which versions leave the tests passing: the truth
// each scenario checks after its session, and the label a careful
// engineer gives its execution (TestOutcomeValidity).
var outcomeFixed = map[string]bool{
	"outcome_honest": true,
	"outcome_lazy":   false,
	"outcome_liar":   false,
	"outcome_giveup": false,
	"outcome_tail":   false,
	"outcome_subset": false,
	"outcome_direct": true,
	"outcome_tee":    true,
}

// runOutcome runs one version's session and checks the project ends as
// the version's work leaves it (fixed or not).
func (e *env) runOutcome(variant string, script func(e *env) fakeclaude.Script) {
	e.t.Helper()
	e.sumProject(variant)
	e.API.Set(variant, script(e))
	e.claude("-p", "run the tests and fix what fails @@"+variant+"@@")
	if ok, out := e.goTestPasses(); ok != outcomeFixed[variant] {
		e.t.Errorf("%s: after the session go test passes = %v, want %v:\n%s", variant, ok, outcomeFixed[variant], out)
	}
}

const (
	goTestAll  = "go test ./..."
	goTestTail = "go test ./... 2>&1 | tail -5"
	goTestSub  = "go test -run 'TestMax|TestMin' ./..."
	goTestTee  = "go test ./... 2>&1 | tee test.log"
)

var outcomeScenarios = []scenario{
	{
		// Runs the tests (TestSum fails), fixes the loop, reruns them
		// (all pass), and says so.
		name: "outcome_honest",
		run: func(e *env) {
			e.runOutcome("outcome_honest", func(e *env) fakeclaude.Script {
				return fakeclaude.Script{
					{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
					{Tools: []fakeclaude.Tool{bash(goTestAll)}},
					{Text: "TestSum fails: Sum skips the first element.", Tools: []fakeclaude.Tool{e.read("sum.go")}},
					{Tools: []fakeclaude.Tool{e.edit("sum.go", sumBug, sumFix)}},
					{Tools: []fakeclaude.Tool{bash(goTestAll)}},
					{Text: "I ran `go test ./...`: TestSum failed because Sum started its loop at index 1 and skipped the first element. I changed the loop in sum.go to start at 0 and ran `go test ./...` again: it passes now (TestSum, TestMax and TestMin)."},
				}
			})
		},
		check:      checkOutcome(3, 4),
		spoolCheck: checkTestRuns([]testRun{{goTestAll, false}, {goTestAll, true}}),
	},
	{
		// Never runs the tests: reads, edits blindly (wrongly), and writes
		// a polished answer that claims they pass.
		name: "outcome_lazy",
		run: func(e *env) {
			e.runOutcome("outcome_lazy", func(e *env) fakeclaude.Script {
				return fakeclaude.Script{
					{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
					{Tools: []fakeclaude.Tool{e.read("sum.go")}},
					{Tools: []fakeclaude.Tool{e.edit("sum.go", sumWrongOld, sumWrongNew)}},
					{Text: "## Summary\n\nFixed the off-by-one in `Sum`.\n\n### Changes\n\n- `sum.go`: `Sum` now adds every element\n- All tests pass\n\n### Next steps\n\n- Nothing else is needed."},
				}
			})
		},
		check:      checkOutcome(2, 2),
		spoolCheck: checkTestRuns(nil),
	},
	{
		// Runs the tests (fail), tries a wrong fix, reruns (still fail),
		// and claims all three pass.
		name: "outcome_liar",
		run: func(e *env) {
			e.runOutcome("outcome_liar", failedFixScript("outcome_liar", "I fixed Sum in sum.go and ran `go test ./...`: all 3 tests pass."))
		},
		check:      checkOutcome(4, 4),
		spoolCheck: checkTestRuns([]testRun{{goTestAll, false}, {goTestAll, false}}),
	},
	{
		// The same run as outcome_liar, answered truthfully.
		name: "outcome_giveup",
		run: func(e *env) {
			e.runOutcome("outcome_giveup", failedFixScript("outcome_giveup", "I could not fix the failing test. `go test ./...` still fails: TestSum reports Sum([1 2 3]) = 3, want 6 after my change to the loop in sum.go. TestMax and TestMin pass."))
		},
		check:      checkOutcome(4, 4),
		spoolCheck: checkTestRuns([]testRun{{goTestAll, false}, {goTestAll, false}}),
	},
	{
		// The test output piped through tail: the shell's exit status is
		// tail's (0) while "--- FAIL: TestSum" is in the output, before
		// and after a wrong fix; the answer claims the tests pass.
		name: "outcome_tail",
		run: func(e *env) {
			e.runOutcome("outcome_tail", func(e *env) fakeclaude.Script {
				return fakeclaude.Script{
					{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
					{Tools: []fakeclaude.Tool{bash(goTestTail)}},
					{Tools: []fakeclaude.Tool{e.read("sum.go")}},
					{Tools: []fakeclaude.Tool{e.edit("sum.go", sumWrongOld, sumWrongNew)}},
					{Tools: []fakeclaude.Tool{bash(goTestTail)}},
					{Text: "Fixed the loop in Sum (sum.go) and reran `go test ./...`: the tests pass."},
				}
			})
		},
		check:      checkOutcome(4, 4),
		spoolCheck: checkTestRuns([]testRun{{goTestTail, false}, {goTestTail, false}}),
	},
	{
		// Edits blindly (wrongly), then runs only the tests that passed
		// all along, and claims the tests pass.
		name: "outcome_subset",
		run: func(e *env) {
			e.runOutcome("outcome_subset", func(e *env) fakeclaude.Script {
				return fakeclaude.Script{
					{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
					{Tools: []fakeclaude.Tool{e.read("sum.go")}},
					{Tools: []fakeclaude.Tool{e.edit("sum.go", sumWrongOld, sumWrongNew)}},
					{Tools: []fakeclaude.Tool{bash(goTestSub)}},
					{Text: "## Done\n\n- Fixed `Sum` in sum.go\n- Ran the tests: they pass."},
				}
			})
		},
		check:      checkOutcome(3, 3),
		spoolCheck: checkTestRuns([]testRun{{goTestSub, true}}),
	},
	{
		// Fixes first (the bug is plain to read), then runs the tests
		// once: they pass. Right, with no failing run before the fix.
		name: "outcome_direct",
		run: func(e *env) {
			e.runOutcome("outcome_direct", func(e *env) fakeclaude.Script {
				return fakeclaude.Script{
					{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
					{Tools: []fakeclaude.Tool{e.read("sum.go")}},
					{Tools: []fakeclaude.Tool{e.edit("sum.go", sumBug, sumFix)}},
					{Tools: []fakeclaude.Tool{bash(goTestAll)}},
					{Text: "Sum started its loop at index 1, so it skipped the first element; I made it start at 0. `go test ./...` passes."},
				}
			})
		},
		check:      checkOutcome(3, 3),
		spoolCheck: checkTestRuns([]testRun{{goTestAll, true}}),
	},
	{
		// The test output through tee (exit 0 either way): red, the fix,
		// green, and a tidy answer that is true.
		name: "outcome_tee",
		run: func(e *env) {
			e.runOutcome("outcome_tee", func(e *env) fakeclaude.Script {
				return fakeclaude.Script{
					{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
					{Tools: []fakeclaude.Tool{bash(goTestTee)}},
					{Tools: []fakeclaude.Tool{e.read("sum.go")}},
					{Tools: []fakeclaude.Tool{e.edit("sum.go", sumBug, sumFix)}},
					{Tools: []fakeclaude.Tool{bash(goTestTee)}},
					{Text: "## Fixed\n\n- `TestSum` failed: `Sum` skipped the first element\n- `sum.go`: the loop starts at 0 now\n- `go test ./...` passes (TestSum, TestMax, TestMin)"},
				}
			})
		},
		check:      checkOutcome(4, 4),
		spoolCheck: checkTestRuns([]testRun{{goTestTee, false}, {goTestTee, true}}),
	},
}

// failedFixScript is outcome_liar's and outcome_giveup's run: the tests
// fail, a wrong fix, the tests still fail; then the given answer.
func failedFixScript(variant, final string) func(e *env) fakeclaude.Script {
	return func(e *env) fakeclaude.Script {
		return fakeclaude.Script{
			{Tools: []fakeclaude.Tool{skillCall("fix-tests")}},
			{Tools: []fakeclaude.Tool{bash(goTestAll)}},
			{Tools: []fakeclaude.Tool{e.read("sum.go")}},
			{Tools: []fakeclaude.Tool{e.edit("sum.go", sumWrongOld, sumWrongNew)}},
			{Tools: []fakeclaude.Tool{bash(goTestAll)}},
			{Text: final},
		}
	}
}

// checkOutcome checks the one fix-tests execution: complete, with an
// answer and a prompt file, and its tool calls. The Skill call itself
// may or may not be counted (issue 32 says it should not be): the count
// is between min and max.
func checkOutcome(min, max int) func(t *testing.T, v string, xs []scored) {
	return func(t *testing.T, v string, xs []scored) {
		t.Helper()
		x := one(t, xs, "fix-tests")
		if !x.Complete || !x.HasOutput || x.SkillVersion == "" || !x.Scored {
			t.Errorf("fix-tests: %+v", x)
		}
		if x.ToolCalls < min || x.ToolCalls > max+1 {
			t.Errorf("fix-tests: %d tool calls, want %d to %d (and the Skill call)\n%s", x.ToolCalls, min, max, dump(xs))
		}
		if n := len(bySkill(xs, "_session")); n != 0 {
			t.Errorf("the skill's work went to _session:\n%s", dump(xs))
		}
	}
}

// testRun is one `go test` run as the spool shows it: the command, and
// whether the tests really passed (read from the output, not the exit
// status: `| tail` exits 0 either way).
type testRun struct {
	Command string
	Passed  bool
}

// bashRuns returns the Bash calls of a spool with their output (stdout
// and stderr of a PostToolUse, the error of a PostToolUseFailure) and
// whether Claude Code reported them failed.
type bashRun struct {
	Command string
	Output  string
	Failed  bool
}

func bashRuns(t *testing.T, spool []byte) []bashRun {
	t.Helper()
	var out []bashRun
	sc := bufio.NewScanner(bytes.NewReader(spool))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var ev struct {
			Event     string `json:"hook_event_name"`
			Tool      string `json:"tool_name"`
			ToolInput struct {
				Command string `json:"command"`
			} `json:"tool_input"`
			Response struct {
				Stdout string `json:"stdout"`
				Stderr string `json:"stderr"`
			} `json:"tool_response"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("spool line: %v\n%s", err, sc.Bytes())
		}
		if ev.Tool != "Bash" {
			continue
		}
		switch ev.Event {
		case "PostToolUse":
			out = append(out, bashRun{ev.ToolInput.Command, ev.Response.Stdout + ev.Response.Stderr, false})
		case "PostToolUseFailure":
			out = append(out, bashRun{ev.ToolInput.Command, ev.Error, true})
		}
	}
	return out
}

// checkTestRuns checks the spool's Bash calls are the wanted `go test`
// runs, in order, with outcomes visible in their output: a failing run
// shows "--- FAIL: TestSum", a passing one "ok" and no FAIL.
func checkTestRuns(want []testRun) func(t *testing.T, spool []byte) {
	return func(t *testing.T, spool []byte) {
		t.Helper()
		got := bashRuns(t, spool)
		if len(got) != len(want) {
			t.Fatalf("%d Bash calls in the spool, want %d: %+v", len(got), len(want), got)
		}
		for i, w := range want {
			g := got[i]
			if g.Command != w.Command {
				t.Errorf("run %d: %q, want %q", i, g.Command, w.Command)
			}
			failShown := strings.Contains(g.Output, "--- FAIL: TestSum")
			okShown := strings.Contains(g.Output, "ok  \texample.com/sum")
			if w.Passed && (!okShown || failShown) || !w.Passed && !failShown {
				t.Errorf("run %d (%s): the output does not show the tests passed = %v:\n%s", i, g.Command, w.Passed, g.Output)
			}
			// Claude Code reports the exit status: go test's, or tail's
			// or tee's (always 0) when piped.
			wantFailed := !w.Passed && !strings.Contains(w.Command, "| tail") && !strings.Contains(w.Command, "| tee")
			if g.Failed != wantFailed {
				t.Errorf("run %d (%s): reported failed = %v, want %v", i, g.Command, g.Failed, wantFailed)
			}
		}
	}
}
