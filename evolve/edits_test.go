package evolve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/proposal"
	"github.com/sepad/sepad/query"
)

func TestApplyEdits(t *testing.T) {
	text := []byte("# A\n\nRun it.\n\n## B\n\nStop.\n")
	got, err := ApplyEdits(text, []Edit{
		{Op: OpReplace, Passage: "Run it.", Text: "Run it once."},
		{Op: OpAdd, Passage: "## B\n", Text: "\nFirst check.\n"},
		{Op: OpDelete, Passage: "\nStop.\n"},
		{Op: OpAdd, Text: "End.\n"},
	})
	if want := "# A\n\nRun it once.\n\n## B\n\nFirst check.\nEnd.\n"; err != nil || string(got) != want {
		t.Fatalf("ApplyEdits = %q %v, want %q", got, err, want)
	}
	bad := []struct {
		edits []Edit
		want  string
	}{
		{[]Edit{{Op: OpReplace, Passage: "Run", Text: "x"}, {Op: OpDelete, Passage: "Run it."}}, "edits 1 and 2 touch the same passage"},
		{[]Edit{{Op: OpReplace, Passage: "\n", Text: "x"}}, `its passage "\n" is found 7 times in the current text, not exactly once`},
		{[]Edit{{Op: OpReplace, Passage: "Walk.", Text: "x"}}, "found 0 times"},
		{[]Edit{{Op: "rewrite", Passage: "Run it."}}, `op "rewrite"`},
		{[]Edit{{Op: OpAdd}}, "adds nothing"},
		{[]Edit{{Op: OpDelete}}, "names no passage"},
	}
	for _, c := range bad {
		_, err := ApplyEdits(text, c.edits)
		var re *proposal.RefusalError
		if !errors.As(err, &re) || re.Rule != RuleEdits || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.edits, err, c.want)
		}
	}
}

func TestParseEdits(t *testing.T) {
	for _, s := range []string{`[{"op":"add","text":"x","reason":"r"}]`, `{"edits":[{"op":"add","text":"x"}]}`, "```json\n[{\"op\":\"add\",\"text\":\"x\"}]\n```"} {
		if es, ok := ParseEdits([]byte(s)); !ok || len(es) != 1 || es[0].Text != "x" {
			t.Errorf("ParseEdits(%q) = %+v %v", s, es, ok)
		}
	}
	for _, s := range []string{"---\nname: x\n---\n# X\n", "[link](x) at the start", `{"text": "x"}`, `[]`} {
		if es, ok := ParseEdits([]byte(s)); ok {
			t.Errorf("ParseEdits(%q) = %+v: a whole text read as edits", s, es)
		}
	}
}

func TestChangedBytesAndBudget(t *testing.T) {
	a := []byte("one\ntwo\nthree\n")
	if got := ChangedBytes(a, []byte("one\n2\nthree\nfour\n")); got != 4+5 { // "-two" over "+2", then "+four"
		t.Errorf("ChangedBytes = %d, want 9", got)
	}
	long := []byte(strings.Repeat("A line of the skill's instructions.\n", 40)) // 1,440 bytes
	if got := Budget(long, 0.3); got != 432 {
		t.Errorf("Budget = %d, want 432", got)
	}
	if got := Budget(a, 0.3); got != MinEditBytes {
		t.Errorf("Budget of a short text = %d, want %d", got, MinEditBytes)
	}
	rewritten := []byte(strings.Repeat("Another line, written anew by a mutator.\n", 14) + strings.Repeat("A line of the skill's instructions.\n", 26))
	if _, _, err := checkBudget(long, rewritten, 0.3); err == nil || !strings.Contains(err.Error(), "refused by edit_budget: the change touches 574 bytes of the 1440-byte text, more than the 432 allowed") {
		t.Errorf("a whole-text rewrite of 14 lines: %v", err)
	}
}

// TestEvolveEdits: an edit list is applied to the text measured and the
// edits are in the record; a list that does not apply, and one over the
// budget, are refused before the proposal rules, the file untouched.
func TestEvolveEdits(t *testing.T) {
	r := newRig(t)
	r.weak()
	r.mode = "edits"
	a, err := r.ev.Run(context.Background(), r.key(), RunOptions{})
	if err != nil || !a.Applied {
		t.Fatalf("%+v %v", a, err)
	}
	want := strings.Replace(strings.Replace(v1, "Use make rollback when a step fails.", "Use make rollback when a step fails, then report the failing step.", 1),
		"Run the checks, then make deploy.", "Run the checks, then make deploy.\nCheck the exit status of every step before the next.", 1)
	if r.file() != want {
		t.Fatalf("file %q, want %q", r.file(), want)
	}
	if len(a.Edits) != 2 || a.Edits[0].Reason != "the runs fail without saying where" || a.ChangedBytes == 0 || a.AllowedBytes != MinEditBytes ||
		!strings.Contains(a.Words, "2 edits") || !strings.Contains(a.Words, "(failed steps went unnoticed)") {
		t.Errorf("attempt %+v", a)
	}
	if got := r.attempts(); len(got) != 1 || len(got[0].Edits) != 2 {
		t.Errorf("recorded %+v", got)
	}
	// sepad diff shows the edit list beside the line diff.
	d, err := query.GetDiff(r.db, r.key(), "v1", "v2")
	if err != nil || len(d.Edits) != 2 || d.Edits[1].Op != OpAdd || d.Edits[1].Reason != "failed steps went unnoticed" || len(d.Hunks) == 0 {
		t.Errorf("diff %+v %v", d, err)
	}
	if !strings.Contains(r.request(), "- changes at most 256 bytes") || !strings.Contains(r.request(), `{"op": "replace", "passage": `) {
		t.Errorf("the request does not ask for edits within the budget:\n%s", r.request())
	}

	// One edit is "1 edit", in the attempt's words and in sepad diff.
	r1 := newRig(t)
	r1.weak()
	r1.mode = "oneedit"
	a, err = r1.ev.Run(context.Background(), r1.key(), RunOptions{})
	if err != nil || !a.Applied || len(a.Edits) != 1 || !strings.Contains(a.Words, "; 1 edit, ") {
		t.Errorf("one edit: %+v %v", a, err)
	}

	for _, c := range []struct{ mode, rule, words string }{
		{"badedit", RuleEdits, "is found 2 times in the current text, not exactly once"},
		{"overbudget", RuleEditBudget, "more than the 256 allowed"},
	} {
		r := newRig(t)
		r.weak()
		r.mode = c.mode
		a, err := r.ev.Run(context.Background(), r.key(), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if a.Applied || a.Outcome != OutcomeRefused || a.Rule != c.rule || !strings.Contains(a.Error, c.words) {
			t.Errorf("%s: %+v", c.mode, a)
		}
		if r.file() != v1 {
			t.Errorf("%s changed the file", c.mode)
		}
	}
}

// TestRequestShowsHalfTheSuite: a skill with an eval suite shows the
// mutator every other case, in name order; the others are held out.
func TestRequestShowsHalfTheSuite(t *testing.T) {
	if s, h := SplitCases([]string{"c", "a", "b", "d", "e"}); strings.Join(s, ",") != "a,c,e" || strings.Join(h, ",") != "b,d" {
		t.Errorf("SplitCases = %v %v", s, h)
	}
	r := newRig(t)
	r.weak()
	for _, c := range []string{"alpha", "beta", "gamma"} {
		dir := filepath.Join(filepath.Dir(r.skill), "evals", c)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("Prompt of "+c+"\n"), 0o644)
	}
	a, err := r.ev.Run(context.Background(), r.key(), RunOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a.Request, "## Eval cases of this skill (2 shown, 1 held out)") || !strings.Contains(a.Request, `- case "alpha": "Prompt of alpha"`) ||
		!strings.Contains(a.Request, `"Prompt of gamma"`) || strings.Contains(a.Request, "beta") {
		t.Errorf("request:\n%s", a.Request)
	}
}

// TestGateRunsHeldOutCases: the eval gate judges an evolved text on the
// cases the request held out (evals.CaseNames, then SplitCases), never
// on those the mutator was shown; a proposal by a person runs the whole
// suite.
func TestGateRunsHeldOutCases(t *testing.T) {
	r := newRig(t)
	var gated [][]string
	r.gate = func(_ context.Context, c mutation.GateCandidate) (*evals.Verdict, error) {
		gated = append(gated, c.Cases)
		return &evals.Verdict{Held: true, Candidate: c.Candidate, Words: "eval gate held"}, nil
	}
	r.weak()
	for _, c := range []string{"delta", "alpha", "gamma", "beta"} {
		dir := filepath.Join(filepath.Dir(r.skill), "evals", c)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "prompt.md"), []byte("Prompt of "+c+"\n"), 0o644)
	}
	os.MkdirAll(filepath.Join(filepath.Dir(r.skill), "evals", "fixtures"), 0o755) // no prompt: not a case
	a, err := r.ev.Run(context.Background(), r.key(), RunOptions{})
	if err != nil || !a.Applied {
		t.Fatalf("evolve: %+v %v", a, err)
	}
	if len(gated) != 1 || strings.Join(gated[0], ",") != "beta,gamma" {
		t.Fatalf("the gate ran %q, want the held-out beta,gamma", gated)
	}
	if req := r.request(); !strings.Contains(req, "(2 shown, 2 held out)") || strings.Contains(req, "Prompt of beta") || strings.Contains(req, "Prompt of gamma") {
		t.Errorf("request shows a held-out case:\n%s", req)
	}
	// A person's proposal: the whole suite.
	for i := 0; i < 3; i++ {
		r.run(a.To, 80, 0)
	}
	if _, err := r.e.Propose(r.key(), []byte(strings.Replace(r.file(), "Use make rollback", "Use make rollback at once", 1)), "test", proposal.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if len(gated) != 2 || gated[1] != nil {
		t.Errorf("a person's proposal gated on %q, want the whole suite", gated[1:])
	}
}
