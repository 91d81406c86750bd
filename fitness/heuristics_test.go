package fitness

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
)

// The tests in this file pin every heuristic of docs/rubric.md with the
// examples the document gives: each example there is a row here.

func TestIsCodingTask(t *testing.T) {
	cases := []struct {
		name   string
		x      execution.Execution
		coding bool
	}{
		{"edit_call", execution.Execution{Prompt: "tidy the notes", Calls: []execution.ToolCall{{Name: "Edit", Done: true}}}, true},
		{"write_call", execution.Execution{Calls: []execution.ToolCall{{Name: "Write", Done: true}}}, true},
		{"notebook_edit_call", execution.Execution{Calls: []execution.ToolCall{{Name: "NotebookEdit", Done: true}}}, true},
		{"failed_edit_is_not_evidence", execution.Execution{Prompt: "tidy the notes", Calls: []execution.ToolCall{{Name: "Edit", Failed: true}}}, false},
		{"implement", execution.Execution{Prompt: "Implement retry with backoff"}, true},
		{"fix", execution.Execution{Prompt: "please fix the login page"}, true},
		{"refactor", execution.Execution{Prompt: "Refactoring the parser, go"}, true},
		{"failing_tests", execution.Execution{Prompt: "why are the tests red?"}, true},
		{"write_a_script", execution.Execution{Prompt: "write a script that renames photos"}, true},
		{"fenced_code_in_prompt", execution.Execution{Prompt: "what does this print?\n\n```\nprint(1/0)\n```"}, true},
		{"plain_question", execution.Execution{Prompt: "what time zone is the server in?"}, false},
		// Whole words only: prefix, latest, decode, contest, debugger's
		// "bugle" cousins do not count.
		{"substrings_do_not_count", execution.Execution{Prompt: "what is the latest prefix used by the decoder in the contest?"}, false},
		{"claude_code_is_a_product", execution.Execution{Prompt: "summarise the Claude Code release notes"}, false},
		{"empty", execution.Execution{}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := IsCodingTask(&c.x); got != c.coding {
				t.Errorf("IsCodingTask(%q) = %v, want %v", c.x.Prompt, got, c.coding)
			}
		})
	}
}

func TestDirectAnswer(t *testing.T) {
	cases := []struct {
		name, out string
		ok        bool
	}{
		{"sentence", "The server runs in UTC, set in /etc/timezone.", true},
		{"after_heading", "# Answer\n\nThe cache is cleared on every deploy.", true},
		{"heading_and_list", "## Changes\n\n- renamed the flag\n- updated the docs", true},
		{"too_short", "Done.", false},
		{"admits_failure", "I was unable to find the config file anywhere.", false},
		{"code_only", "```go\nx := 1\n```", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := hasDirectAnswer(analyze(c.out)); got != c.ok {
				t.Errorf("hasDirectAnswer(%q) = %v, want %v", c.out, got, c.ok)
			}
		})
	}
}

func TestExplanation(t *testing.T) {
	cases := []struct {
		name, out string
		ok        bool
	}{
		{"because", "Renamed it because the old name clashed.", true},
		{"due_to", "The crash was due to a nil map.", true},
		{"two_sentences", "I moved the check into the loop. Each item is now validated once.", true},
		{"list_items_count", "Changes made today:\n\n- the check now runs inside the loop\n- every item is validated once", true},
		{"one_short_sentence", "Renamed the flag.", false},
		{"one_wrapped_sentence_is_one", "Renamed the flag in the config loader\nand in every caller of it", false},
		{"code_is_not_explanation", "Done.\n\n```go\n// because we can. This is a comment in code.\nx := 1\n```", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := hasExplanation(analyze(c.out)); got != c.ok {
				t.Errorf("hasExplanation(%q) = %v, want %v", c.out, got, c.ok)
			}
		})
	}
}

func TestNextSteps(t *testing.T) {
	cases := []struct {
		name, out string
		ok        bool
	}{
		{"next_steps_label", "Fixed.\n\nNext steps: run the migration.", true},
		{"recommend", "I recommend pinning the version.", true},
		{"consider_in_list_item", "Fixed the parser.\n\n- Consider adding a fuzz test", true},
		{"you_could", "You could also cache the result.", true},
		{"none", "The value is 42.", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := hasNextSteps(analyze(c.out).prose); got != c.ok {
				t.Errorf("hasNextSteps(%q) = %v, want %v", c.out, got, c.ok)
			}
		})
	}
}

func TestFollowsFormat(t *testing.T) {
	cases := []struct {
		name, out string
		ok        bool
	}{
		{"clean", "All good.\n\n```go\nx := 1\n```\n", true},
		{"unclosed_fence", "Here is the file I wrote.\n\n```go\nfunc main() {\n", false},
		{"closed_fence_in_blockquote", "> ```go\n> x := 1\n> ```\n\nThat is all.", true},
		{"closed_fence_in_list_item", "1. Add this:\n\n   ```go\n   x := 1\n   ```\n2. Run it.", true},
		{"unclosed_fence_in_blockquote", "> ```go\n> x := 1\n\nThat is all.", false},
		{"unclosed_fence_in_list_item", "1. Add this:\n\n   ```go\n   x := 1\n2. Run it.", false},
		{"longer_closing_fence", "Code:\n\n```go\nx := 1\n`````\n\nDone now.", true},
		{"tilde_fence", "~~~\nls\n~~~\n", true},
		{"placeholder_braces", "Hello {{name}}, your order shipped.", false},
		{"placeholder_insert", "Set the key to <insert key here> and restart.", false},
		{"placeholder_your", "Email [your name] when done.", false},
		{"braces_in_code_span_are_code", "Templates use `{{ .Name }}` for fields.", true},
		{"truncated_dots", "The migration is half way through...", false},
		{"dots_before_code_are_fine", "Here is the code...\n\n```go\nx := 1\n```\n", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := followsFormat(analyze(c.out)); got != c.ok {
				t.Errorf("followsFormat(%q) = %v, want %v", c.out, got, c.ok)
			}
		})
	}
}

func TestSyntaxChecks(t *testing.T) {
	cases := []struct {
		name, lang, code string
		ok               bool
		judged           int
	}{
		{"json_ok", "json", `{"a": [1, 2]}`, true, 1},
		{"json_bad", "json", `{a: 1}`, false, 1},
		{"jsonc_not_judged", "jsonc", "{\n  // comment\n  \"a\": 1\n}", true, 0},
		{"yaml_ok", "yaml", "a: 1\nb: [x, y]\n", true, 1},
		{"yml_bad", "yml", "a: [1, 2\n", false, 1},
		{"yaml_second_document_bad", "yaml", "a: 1\n---\nb: [1, 2\n", false, 1},
		{"go_file", "go", "package main\n\nfunc main() {}\n", true, 1},
		{"go_decls", "go", "func f() int { return 1 }\n\ntype T struct{ A int }\n", true, 1},
		{"go_statements", "go", "x := 1\nfmt.Println(x)\n", true, 1},
		{"go_with_elision", "go", "func f() {\n\t...\n\treturn\n}\n", true, 1},
		{"go_bad", "golang", "func f( {\n", false, 1},
		{"python_not_judged", "python", "def f(:\n", true, 0},
		{"no_language_not_judged", "", "{{{", true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ok, judged := fencesParse([]fence{{lang: c.lang, code: c.code}})
			if ok != c.ok || judged != c.judged {
				t.Errorf("fencesParse(%s %q) = %v, %d; want %v, %d", c.lang, c.code, ok, judged, c.ok, c.judged)
			}
		})
	}
}

// TestErrorPatternsEach gives every pattern a hit and a near miss. Prose
// about errors (error handling, catching exceptions) is not an error.
func TestErrorPatternsEach(t *testing.T) {
	cases := []struct {
		text string
		want string // "" for no hit
	}{
		{"Traceback (most recent call last):", "traceback"},
		{"The traceback was long.", ""},
		{"panic: assignment to entry in nil map", "panic"},
		{"The code no longer panics: maps are initialised.", ""},
		{"Error: ENOENT: no such file", "error_line"},
		{"ERROR: relation does not exist", "error_line"},
		{"I added error handling for the errors the API returns.", ""},
		{"Errors are now wrapped with %w.", ""},
		{"java.lang.IllegalStateException: closed", "exception"},
		{"It raised a NullPointerException here.", "exception"},
		{"The ExceptionHandler class is new.", ""},
		{"ValueError: invalid literal for int()", "exception"},
		{"TypeError: x is undefined", "exception"},
		{"Exception in thread \"main\" java.lang.Error", "exception"},
		{"The reader now catches IOException.", ""},
		{"Catches ValueError when parsing.", ""},
		{"The function returns an error: nil on success.", ""},
		{"sh: jq: command not found", "command_not_found"},
		{"open /etc/shadow: permission denied", "permission_denied"},
		{"fatal: not a git repository", "fatal"},
		{"Segmentation fault (core dumped)", "segfault"},
		{"--- FAIL: TestParse (0.00s)", "test_fail"},
		{"FAILED tests/test_api.py::test_login", "test_fail"},
		{"The FAIL label is shown in red.", ""},
		{"I was unable to reproduce the crash.", "gave_up"},
		{"I couldn't find the config file.", "gave_up"},
		{"I couldn\u2019t find the config file.", "gave_up"},
		{"The build failed to link.", "failed_to"},
		{"All tests pass.", ""},
	}
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			got := ErrorPatterns(c.text)
			want := []string{}
			if c.want != "" {
				want = []string{c.want}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ErrorPatterns(%q) = %v, want %v", c.text, got, want)
			}
		})
	}
}

// TestOutputProse checks what counts as prose: list items and every line of
// a paragraph do, code blocks and code spans do not.
func TestOutputProse(t *testing.T) {
	cases := []struct {
		name, out string
		patterns  int
	}{
		{"error_in_list_item", "Summary of the run below.\n\n- Error: the build broke\n- the rest is fine", 1},
		{"error_on_second_line_of_paragraph", "Build output follows.\nError: cannot find module 'x'", 1},
		{"error_in_code_block", "Handled it.\n\n```\npanic: boom\n```\n", 0},
		{"error_in_code_span", "When jq is missing the script prints `command not found` and exits.", 0},
		{"error_in_heading", "# Error: build failed\n\nSee above.", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Score(&execution.Execution{HasOutput: true, Output: c.out}, medium)
			if r.Errors.OutputPatterns != c.patterns {
				t.Errorf("output patterns %d, want %d (%+v)", r.Errors.OutputPatterns, c.patterns, ErrorPatterns(analyze(c.out).prose))
			}
		})
	}
}

func TestCodeItem(t *testing.T) {
	cases := []struct {
		name string
		x    execution.Execution
		ok   bool
	}{
		{"fenced_block", execution.Execution{Prompt: "fix the bug", Output: "Fixed it today.\n\n```go\nx := 1\n```"}, true},
		{"code_span", execution.Execution{Prompt: "fix the bug", Output: "Changed `total := price - discount` in cart.go today."}, true},
		{"edited_files", execution.Execution{Prompt: "fix the bug", Output: "Fixed the discount in cart.go today.",
			Calls: []execution.ToolCall{{Name: "Edit", Done: true}}}, true},
		{"no_code", execution.Execution{Prompt: "fix the bug", Output: "The discount is now applied in the cart."}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.x.HasOutput = true
			s := signal(Score(&c.x, medium), SignalOutput)
			if lacks := strings.Contains(s.Detail, "lacks") && strings.Contains(s.Detail, "code"); lacks == c.ok {
				t.Errorf("detail %q: code item ok should be %v", s.Detail, c.ok)
			}
		})
	}
}

func TestSoftFailures(t *testing.T) {
	cases := []struct {
		name string
		resp string
		soft int
	}{
		{"traceback_in_ok_call", "Traceback (most recent call last):\n  File \"x.py\", line 1", 1},
		{"missing_command", "bash: rg: command not found", 1},
		{"clean_output", "ok  \tgithub.com/x/y\t0.01s", 0},
		{"error_word_is_not_hard", "Error: 3 lint warnings", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := execution.Execution{Calls: []execution.ToolCall{{Name: "Bash", Done: true, Response: c.resp}}}
			r := Score(&x, medium)
			if r.Errors.SoftFailures != c.soft || signal(r, SignalToolSuccess).Value != 1 {
				t.Errorf("%+v, tool success %v", r.Errors, signal(r, SignalToolSuccess).Value)
			}
		})
	}
}

func TestBlankOutputIsAbsent(t *testing.T) {
	r := Score(&execution.Execution{HasOutput: true, Output: " \n\t\n"}, medium)
	if r.Scored || signal(r, SignalOutput).Present || signal(r, SignalStructure).Present {
		t.Errorf("blank output scored: %+v", r)
	}
}
