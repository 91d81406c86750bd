package execution

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sepad/sepad/event"
)

// verdictTable is the spec of ReadVerdict: how people push back on an
// answer, accept it, or just go on. docs/executions.md quotes it.
var verdictTable = []struct {
	prompt string
	want   Verdict
}{
	// Corrections: the phrasings first.
	{"that's wrong, the tests still fail", VerdictCorrection},
	{"the tests still fail", VerdictCorrection},
	{"still fails", VerdictCorrection},
	{"It doesn't work", VerdictCorrection},
	{"you didn't run the tests", VerdictCorrection},
	{"No, that's not it", VerdictCorrection},
	{"that broke the login page", VerdictCorrection},
	{"revert that", VerdictCorrection},
	{"not what I asked", VerdictCorrection},
	{"That’s wrong", VerdictCorrection},
	{"Thanks, but the tests still fail", VerdictCorrection},
	{"Hmm, TestSum still fails with the same error", VerdictCorrection},
	{"I ran go test and it fails", VerdictCorrection},
	{"Did you even run the tests? TestSum is red", VerdictCorrection},
	{"this is still broken", VerdictCorrection},
	{"Great, it still fails.", VerdictCorrection},
	{"nope", VerdictCorrection},
	{"no.", VerdictCorrection},
	{"Undo your changes to cart.go", VerdictCorrection},
	{"You broke the build", VerdictCorrection},
	{"the build is broken now", VerdictCorrection},
	{"the fix didn't help", VerdictCorrection},
	{"tests are failing again", VerdictCorrection},
	{"Same error as before", VerdictCorrection},
	{"wrong file, the handler is in api/users.go", VerdictCorrection},
	{"that's not true, TestSum fails", VerdictCorrection},
	{"--- FAIL: TestSum (0.00s)\n    sum_test.go:9: got 5, want 6", VerdictCorrection},
	{"you made it worse", VerdictCorrection},
	{"why is it still failing?", VerdictCorrection},
	{"Nothing changed, I still get a 500", VerdictCorrection},
	{"no it still returns the wrong total", VerdictCorrection},
	{"It's not fixed", VerdictCorrection},
	{"stop. don't touch the migrations", VerdictCorrection},
	{"Doesn't compile", VerdictCorrection},
	{"you only ran TestMax", VerdictCorrection},
	{"please revert", VerdictCorrection},
	{"I said sum, not max", VerdictCorrection},
	{"go back to the previous version", VerdictCorrection},
	{"It's worse now", VerdictCorrection},
	{"FAIL: TestSum", VerdictCorrection},
	{"Didn't work", VerdictCorrection},
	{"Are you sure? TestSum fails for me", VerdictCorrection},
	{"you claimed the tests pass but they don't", VerdictCorrection},
	{"You said all tests pass. They don't.", VerdictCorrection},
	{"I get the same error", VerdictCorrection},

	// Acceptances.
	{"thanks, works", VerdictAcceptance},
	{"perfect", VerdictAcceptance},
	{"lgtm", VerdictAcceptance},
	{"Thank you! Now add a README section", VerdictAcceptance},
	{"great, the tests pass now", VerdictAcceptance},
	{"Works now, thanks", VerdictAcceptance},
	{"That fixed it.", VerdictAcceptance},
	{"Looks good to me, commit it", VerdictAcceptance},
	{"👍", VerdictAcceptance},
	{"nice work", VerdictAcceptance},
	{"It works!", VerdictAcceptance},
	{"ok thanks", VerdictAcceptance},
	{"Yes, that's it", VerdictAcceptance},
	{"all tests pass now, ship it", VerdictAcceptance},
	{"TestSum no longer fails, thanks", VerdictAcceptance},
	{"All green now", VerdictAcceptance},
	{"cool, thanks", VerdictAcceptance},
	{"that's it, thanks", VerdictAcceptance},

	// Neither: new requests, negations, conditions, quotes, questions.
	{"Now add a README", VerdictNone},
	{"nobody uses this, remove it", VerdictNone},
	{"Notice the failing test", VerdictNone},
	{"deploy to staging", VerdictNone},
	{"Is there no way to do it?", VerdictNone},
	{"stopwatch support please", VerdictNone},
	{"No tests cover parse.go yet, add some", VerdictNone},
	{"If it still fails, try go test -v", VerdictNone},
	{"make sure the tests pass before you commit", VerdictNone},
	{"write a test that fails when the total is negative", VerdictNone},
	{`change the error message to "that's wrong, try again"`, VerdictNone},
	{"add a check: `if err != nil { return errors.New(\"it doesn't work\") }`", VerdictNone},
	{"> the tests still fail\nthat was the old message; make the new one friendlier", VerdictNone},
	{"don't revert that, keep it", VerdictNone},
	{"no problem, next: rename the flag", VerdictNone},
	{"does it work on Windows too?", VerdictNone},
	{"run the tests", VerdictNone},
	{"stop the dev server and restart it with --port 8080", VerdictNone},
	{"Revert the commit abc123 on the release branch", VerdictNone},
	{"/fix-tests", VerdictNone},
	{"<task-notification>the tests still fail</task-notification>", VerdictNone},
	{"the parser should say it is not correct when the input is empty", VerdictNone},
	{"", VerdictNone},
	{"go back to the README and add a section on flags", VerdictNone},
	{"I think the tests pass now, can you double-check?", VerdictNone},
	{"Ok", VerdictNone},
	{"make the test pass", VerdictNone},
	{"Why does the checkout test fail? Please fix it.", VerdictNone},
}

func TestReadVerdict(t *testing.T) {
	counts := map[Verdict]int{}
	for _, c := range verdictTable {
		counts[c.want]++
		if got := ReadVerdict(c.prompt); got != c.want {
			t.Errorf("ReadVerdict(%q) = %q, want %q", c.prompt, got, c.want)
		}
		if got := IsCorrection(c.prompt); got != (c.want == VerdictCorrection) {
			t.Errorf("IsCorrection(%q) = %v", c.prompt, got)
		}
	}
	if counts[VerdictCorrection] < 10 || counts[VerdictAcceptance] < 10 || counts[VerdictNone] < 10 {
		t.Errorf("the table needs at least 10 phrasings of each kind: %v", counts)
	}
}

func TestQuoteOf(t *testing.T) {
	if q := quoteOf("  that's   wrong,\nthe tests still fail "); q != "that's wrong, the tests still fail" {
		t.Errorf("quote = %q", q)
	}
	long := strings.Repeat("é", 200)
	q := quoteOf(long)
	if !utf8.ValidString(q) || len(q) > maxVerdictQuote+len("…") || !strings.HasSuffix(q, "…") {
		t.Errorf("long quote = %q (%d bytes)", q, len(q))
	}
}

func FuzzReadVerdict(f *testing.F) {
	for _, c := range verdictTable {
		f.Add(c.prompt)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		v := ReadVerdict(prompt)
		switch v {
		case VerdictNone, VerdictCorrection, VerdictAcceptance:
		default:
			t.Fatalf("ReadVerdict(%q) = %q", prompt, v)
		}
		// Quoted, the same words are no verdict of the person's.
		if !strings.ContainsAny(prompt, "`\"\n") && !strings.HasPrefix(strings.TrimSpace(prompt), "/") {
			if q := ReadVerdict("rename the message \"" + prompt + "\""); q != VerdictNone {
				t.Fatalf("quoted %q read as %q", prompt, q)
			}
		}
		// Past the input bound, nothing more is read.
		if len(prompt) > maxVerdictInput && ReadVerdict(prompt) != ReadVerdict(prompt[:maxVerdictInput]) {
			t.Fatalf("read past %d bytes", maxVerdictInput)
		}
		if q := quoteOf(prompt); !utf8.ValidString(prompt) || utf8.ValidString(q) {
			return
		} else {
			t.Fatalf("quote of valid text is invalid: %q", q)
		}
	})
}

// TestVerdictGrouping is the spec of how a verdict lands (fixture
// testdata/verdict.jsonl): the correction and its repair are the skill's,
// the acceptance after the repair is the skill's too, and a "no, stop"
// that interrupts a turn judges that turn's run.
func TestVerdictGrouping(t *testing.T) {
	xs := groupFile(t, "testdata/verdict.jsonl")
	got, _ := json.MarshalIndent(xs, "", "  ")
	golden := "testdata/verdict.golden.json"
	if *update {
		os.WriteFile(golden, append(got, '\n'), 0o644)
	}
	if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("executions differ from %s (%v); rerun with -update and review the diff", golden, err)
	}
	type row struct {
		skill                    string
		calls, failures, repairs int
		corrections, acceptances int
		complete                 bool
		output                   string
	}
	want := []row{
		// The skill's run and its repair: 1 call, then 3 after the
		// correction; the repair's answer is the output.
		{"fix-tests", 4, 1, 1, 1, 1, true, "`go test ./...` passes now: `Sum` added 1 too many."},
		// The accepted request's own run: no verdict on it.
		{"_session", 1, 0, 0, 0, 0, true, "The README has one heading, `# calc`."},
		// Interrupted by "no, stop": corrected, incomplete, its
		// unanswered Write a failure.
		{"_session", 1, 1, 0, 1, 0, false, ""},
		// The turn "no, stop" started (Claude's "Stopped."): nobody
		// judged it.
		{"_session", 0, 0, 0, 0, 0, true, "Stopped."},
	}
	if len(xs) != len(want) {
		t.Fatalf("got %d executions, want %d: %s", len(xs), len(want), got)
	}
	for i, w := range want {
		x := xs[i]
		g := row{x.Skill, len(x.Calls), x.Failures(), x.Repairs, x.Corrections, x.Acceptances, x.Complete, x.Output}
		if g != w {
			t.Errorf("execution %d = %+v, want %+v", i, g, w)
		}
	}
	if v := xs[0].Verdicts; len(v) != 2 || v[0].Verdict != VerdictCorrection || v[0].Quote != "that's wrong, the tests still fail" ||
		v[1].Verdict != VerdictAcceptance {
		t.Errorf("verdicts = %+v", v)
	}
	// The repair's rerun after the edit verifies the fix: not a retry.
	if xs[0].Retries() != 0 {
		t.Errorf("retries = %d", xs[0].Retries())
	}
}

// TestVerdictSaveRestore: a grouper saved and restored anywhere, also
// between a correction and its repair, groups the same.
func TestVerdictSaveRestore(t *testing.T) {
	lines := readLines(t, "testdata/verdict.jsonl")
	whole, _ := json.Marshal(groupAll(NewGrouper(Options{}), lines, -1))
	for cut := 1; cut < len(lines); cut++ {
		g := NewGrouper(Options{})
		first := groupAll(g, lines[:cut], 0)
		put, _ := g.Dirty()
		g2 := NewGrouper(Options{})
		if err := g2.Restore(put); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(append(first, groupAll(g2, lines[cut:], -1)...))
		if !bytes.Equal(whole, b) {
			t.Fatalf("cut at %d: restored grouping differs", cut)
		}
	}
}

// TestVerdictLiterals: the waiting time before a repair is not the run's
// time; a correction that invokes a skill starts that skill's run; a
// message typed while Claude works gives its verdict on the running
// execution.
func TestVerdictLiterals(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	bash := json.RawMessage(`{"command":"go test ./..."}`)
	t.Run("waited", func(t *testing.T) {
		g := NewGrouper(Options{})
		xs := feed(g, []event.Event{
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "fix the tests", Time: at(0)},
			{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: bash, ToolUseID: "1", Time: at(10)},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "All tests pass.", Time: at(20)},
			// The person reads for 5 minutes.
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "still fails", Time: at(320)},
			{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: bash, ToolUseID: "2", Time: at(330)},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "Now it passes.", Time: at(340)},
			{SessionID: "s", HookEvent: event.SessionEnd, Time: at(400)},
		})
		if len(xs) != 1 {
			t.Fatalf("got %d executions", len(xs))
		}
		if d, ok := xs[0].Duration(); !ok || d != 40000 || xs[0].WaitedMS != 300000 {
			t.Errorf("duration %d %v, waited %d: want 40s of work and 300s waited", d, ok, xs[0].WaitedMS)
		}
	})
	t.Run("correction invoking a skill", func(t *testing.T) {
		g := NewGrouper(Options{})
		xs := feed(g, []event.Event{
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "fix the tests"},
			{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: bash, ToolUseID: "1"},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "Done."},
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "no, that's wrong. use the fix skill"},
			{SessionID: "s", HookEvent: event.PreToolUse, ToolName: "Skill", ToolInput: json.RawMessage(`{"skill":"fix"}`), ToolUseID: "2"},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "Fixed."},
			{SessionID: "s", HookEvent: event.SessionEnd},
		})
		// The prompt invokes no skill itself: the repair is the first
		// run's, and the skill the model then calls is its own.
		if len(xs) != 2 || xs[0].Corrections != 1 || xs[0].Repairs != 1 || xs[1].Skill != "fix" {
			t.Fatalf("got %+v", summarize(xs))
		}
		g = NewGrouper(Options{})
		xs = feed(g, []event.Event{
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "fix the tests"},
			{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: bash, ToolUseID: "1"},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "Done."},
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "/fix the tests still fail"},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "Fixed."},
			{SessionID: "s", HookEvent: event.SessionEnd},
		})
		if len(xs) != 2 || xs[0].Repairs != 0 || xs[1].Skill != "fix" || xs[1].Kind != "skill" {
			t.Fatalf("typed skill: got %+v", summarize(xs))
		}
	})
	t.Run("typed while working", func(t *testing.T) {
		g := NewGrouper(Options{})
		xs := feed(g, []event.Event{
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "fix the tests", PromptID: "p1"},
			{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: bash, ToolUseID: "1"},
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "you didn't run the tests", PromptID: "p1"},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "Done."},
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "lgtm"},
			{SessionID: "s", HookEvent: event.SessionEnd},
		})
		if len(xs) != 1 || xs[0].Corrections != 1 || xs[0].Acceptances != 1 || xs[0].Repairs != 0 {
			t.Fatalf("got %+v", xs)
		}
	})
}

func feed(g *Grouper, evs []event.Event) []Execution {
	var xs []Execution
	for i := range evs {
		xs = append(xs, g.Add(&evs[i])...)
	}
	return append(xs, g.Flush()...)
}
