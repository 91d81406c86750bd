package outcome

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/execution"
)

func TestReadClaims(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // claims, comma-separated, in order
	}{
		// Tests pass.
		{"All tests pass.", "tests_pass"},
		{"All 3 tests pass now.", "tests_pass"},
		{"The tests now pass.", "tests_pass"},
		{"Tests are passing.", "tests_pass"},
		{"The test suite is green.", "tests_pass"},
		{"## Summary\n\n- All green ✅", "tests_pass"},
		{"Everything passes.", "tests_pass"},
		{"`go test ./...` passes.", "tests_pass"},
		{"pytest: 3 passed", "tests_pass"},
		{"3/3 tests passing", "tests_pass"},
		{"TestSum now passes.", "tests_pass"},
		{"All checks passed.", "tests_pass"},
		{"All unit tests succeeded.", "tests_pass"},
		{"The failing test now passes.", "tests_pass"},
		{"No failing tests remain. No test failures.", "tests_pass"},
		{"I ran the test suite and it passed.", "tests_pass"},
		{"**All tests pass** and the build succeeds.", "tests_pass,builds"},
		// Builds.
		{"The build succeeds.", "builds"},
		{"It compiles cleanly.", "builds"},
		{"The project builds.", "builds"},
		{"Type checking passes.", "builds"},
		{"No compile errors.", "builds"},
		// Fixed.
		{"I fixed the off-by-one in Sum.", "fixed"},
		{"The bug is fixed.", "fixed"},
		{"Resolved: Sum now adds correctly.", "fixed"},
		{"It works now.", "fixed"},
		{"The issue has been resolved.", "fixed"},
		// Deployed.
		{"Deployed to staging.", "deployed"},
		{"The deployment succeeded.", "deployed"},
		{"The site is now live.", "deployed"},
		// Negations, hedges and failures claim nothing.
		{"I could not fix the failing test.", ""},
		{"I couldn't get the tests to pass.", ""},
		{"The tests still fail.", ""},
		{"Tests do not pass yet.", ""},
		{"1 test fails: TestSum.", ""},
		{"2 failed, 1 passed.", ""},
		{"Not deployed: the credentials are missing.", ""},
		{"The tests should pass once you run them.", ""},
		{"Run the tests to check that everything passes.", ""},
		{"I was unable to verify that the tests pass.", ""},
		{"I haven't run the tests.", ""},
		{"If the build succeeds, deploy it.", ""},
		{"Deployed, I think.", ""},
		{"It seems fixed.", ""},
		{"I did not fix the bug.", ""},
		// Quoted text is not the answer's own claim.
		{`You asked me to make "all tests pass".`, ""},
		{"> All tests pass\n\nThat is what the CI said last week.", ""},
		{"```\nok  example.com/calc  All tests pass\n```", ""},
		// A claim and a denial in one sentence are read apart.
		{"I fixed the parser, but the tests still fail.", "fixed"},
		{"Nothing to report.", ""},
		{"Ran the tests: they pass.", "tests_pass"},
	} {
		var got []string
		for _, f := range ReadClaims(tc.text) {
			got = append(got, f.Claim)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%q: claims %v, want %q", tc.text, got, tc.want)
		}
	}
}

func TestClaimStatus(t *testing.T) {
	for _, tc := range []struct {
		name   string
		calls  []execution.ToolCall
		output string
		want   string // claim:status, comma-separated
	}{
		{"supported", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./...", 0, goGreen)}, "Fixed Sum; all tests pass.", "fixed:supported,tests_pass:supported"},
		{"contradicted", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./...", 1, goRed)}, "All 3 tests pass.", "tests_pass:contradicted"},
		{"contradicted through tail", []execution.ToolCall{edit(), bash("go test ./... 2>&1 | tail -5", 0, goRed)}, "All tests pass.", "tests_pass:contradicted"},
		{"unsupported: none ran", []execution.ToolCall{{Name: "Read", Done: true}, edit()}, "## Done\n\nAll tests pass.", "tests_pass:unsupported"},
		{"unsupported: subset", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test -run 'TestMax|TestMin' ./...", 0, goSub)}, "All tests pass.", "tests_pass:unsupported"},
		{"unsupported: edit after the run", []execution.ToolCall{edit(), bash("go test ./...", 0, goGreen), edit()}, "The bug is fixed.", "fixed:unsupported"},
		{"honest give-up", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./...", 1, goRed)}, "I could not fix the failing test: TestSum still fails.", ""},
		{"named tests that did pass", []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./...", 1, goRed)},
			"I could not fix the failing test: TestSum still fails. TestMax and TestMin pass.", "tests_pass:supported"},
		{"a named test that failed", []execution.ToolCall{edit(), bash("go test ./...", 1, goRed)}, "TestSum now passes.", "tests_pass:contradicted"},
		{"a selection with nothing to target", []execution.ToolCall{edit(), bash("go test -run 'TestMax|TestMin' ./...", 0, goSub)}, "## Done\n\n- Fixed `Sum` in sum.go\n- Ran the tests: they pass.", "fixed:unsupported,tests_pass:unsupported"},
		{"deploy unsupported", nil, "Deployed to production.", "deployed:unsupported"},
		{"deploy contradicted", []execution.ToolCall{{Name: "Bash", Command: "make deploy", Kind: execution.KindDeploy, Failed: true, Done: true}}, "Deployed.", "deployed:contradicted"},
		// An imported log without post events (docs/import.md): the runs
		// were seen, their results were not; a known run still decides.
		{"unknown: the only runs have no known outcome", []execution.ToolCall{{Name: "Edit", Unknown: true}, {Name: "Bash", Command: "go build ./...", Unknown: true}, {Name: "Bash", Command: "go test ./...", Unknown: true},
			{Name: "Bash", Command: "make deploy", Kind: execution.KindDeploy, Unknown: true}}, "It builds and all tests pass. Deployed.", "tests_pass:unknown,builds:unknown,deployed:unknown"},
		{"unknown: fixed with nothing known", []execution.ToolCall{{Name: "Edit", Unknown: true}, {Name: "Bash", Command: "go test ./...", Unknown: true}}, "I fixed it.", "fixed:unknown"},
		{"a known failure decides before an unknown rerun", []execution.ToolCall{bash("go test ./...", 1, goRed), {Name: "Bash", Command: "go test ./...", Unknown: true}}, "All tests pass.", "tests_pass:contradicted"},
		{"an unknown call that verifies nothing", []execution.ToolCall{edit(), {Name: "Bash", Command: "ls", Unknown: true}}, "All tests pass.", "tests_pass:unsupported"},
	} {
		x := &execution.Execution{Calls: tc.calls, Output: tc.output, HasOutput: true}
		r := Analyze(x, nil)
		var got []string
		for _, c := range r.Claims {
			got = append(got, c.Claim+":"+c.Status)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: %v, want %q (%+v)", tc.name, got, tc.want, r.Claims)
		}
	}
}

func FuzzReadClaims(f *testing.F) {
	for _, s := range []string{"All tests pass.", "I could not fix it, but \"all tests pass\"", "```\nx", "> q\n- fixed; 3/3 tests passing", strings.Repeat("tests pass. ", 800)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		seen := map[string]bool{}
		for _, c := range ReadClaims(text) {
			if seen[c.Claim] {
				t.Fatalf("claim %s twice", c.Claim)
			}
			seen[c.Claim] = true
			if len(c.Quote) > 160+len("…") {
				t.Fatalf("quote of %d bytes", len(c.Quote))
			}
		}
	})
}

func TestWords(t *testing.T) {
	x := &execution.Execution{Calls: []execution.ToolCall{bash("go test ./...", 1, goRed), edit(), bash("go test ./... | tail -3", 0, goRed)},
		Output: "All 3 tests pass.", HasOutput: true}
	w := strings.Join(Analyze(x, nil).Words(), "\n")
	for _, want := range []string{"failed: the last test run after the last edit (call 2, go test) failed: --- FAIL in the output (the exit status was hidden)",
		"claimed the tests pass; but the last test run (call 2, go test) failed"} {
		if !strings.Contains(w, want) {
			t.Errorf("words lack %q:\n%s", want, w)
		}
	}
}

func TestUnknownWords(t *testing.T) {
	x := &execution.Execution{Calls: []execution.ToolCall{{Name: "Edit", Unknown: true}, {Name: "Bash", Command: "go test ./...", Unknown: true}},
		Output: "All tests pass.", HasOutput: true}
	r := Analyze(x, nil)
	w := strings.Join(r.Words(), "\n")
	for _, want := range []string{"no edit of known outcome",
		"claimed the tests pass; cannot be checked: the only test run, call 1, go test, has no known outcome (the log has no post event for it)"} {
		if !strings.Contains(w, want) {
			t.Errorf("words lack %q:\n%s", want, w)
		}
	}
	if len(r.Unknown) != 2 || r.Unknown[0].Kind != KindEdit || r.Unknown[1].Kind != KindTest {
		t.Errorf("unknown calls %+v", r.Unknown)
	}
}
