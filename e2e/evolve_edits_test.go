package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/internal/fakeclaude"
)

// TestEvolveEditsWithClaudeCode is issue 38's loop on the real Claude
// Code as the mutator (the fake model server its model), answering with
// edit lists: an edit set over mutation.edit_budget is refused and
// changes nothing; an edit set within it is applied to the exact bytes
// measured (every untouched passage byte-identical) and listed with its
// reason by `sepad diff`; the candidate runs worse and is rolled back;
// the same edit set offered again is refused by rejected_before, with no
// candidate written and so no session run on it, and the request that
// drew it showed the rejected change.
func TestEvolveEditsWithClaudeCode(t *testing.T) {
	bin := claudeForEvolve(t)
	srv, err := fakeclaude.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	p := newProject(t)
	p.config("  claude: " + bin + "\n  mutator_timeout: 2m\n")
	v1 := skillText("Run the checks, then make deploy. @@edits-v1@@\n\n## Rollback\n\nUse make rollback.")
	v2 := skillText("Run the checks first and stop at the first failure; then make deploy. @@edits-v1@@\n\n## Rollback\n\nUse make rollback.")
	good := []evolve.Edit{{Op: evolve.OpReplace, Passage: "Run the checks, then make deploy.", Text: "Run the checks first and stop at the first failure; then make deploy.",
		Reason: "runs went on after a failed step"}}
	answer := func(edits []evolve.Edit) fakeclaude.Script {
		b, _ := json.Marshal(edits)
		return fakeclaude.Script{{Text: "```json\n" + string(b) + "\n```", Usage: &fakeclaude.Usage{Input: 3000, Output: 200}}}
	}
	writeFile(t, p.skill, v1)
	startDaemonOffline(t, p, offline(srv.URL))
	p.turns(5, 2, badAnswer)
	p.release()
	waitRuns(t, p, 5)

	// Over the budget (256 bytes for this short text): refused, the file
	// untouched.
	srv.Set("edits-v1", answer([]evolve.Edit{{Op: evolve.OpReplace, Passage: "Use make rollback.", Text: strings.Repeat("Roll back with care. ", 20), Reason: "rollbacks failed"}}))
	out, errOut, code := sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home)
	if code != 1 || !strings.Contains(out, "refused: the change touches ") || !strings.Contains(out, "more than the 256 allowed") {
		t.Fatalf("an edit set over the budget: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(p.skill); string(b) != v1 {
		t.Fatalf("a refused edit set changed the file:\n%s", b)
	}

	// Within it: applied, and listed with its reason.
	srv.Set("edits-v1", answer(good))
	out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("evolve: %d %s %s", code, out, errOut)
	}
	var a evolve.Attempt
	json.Unmarshal([]byte(out), &a)
	if !a.Applied || a.Mutator != "claude-code" || len(a.Edits) != 1 || a.Edits[0].Reason != good[0].Reason || a.ChangedBytes == 0 || a.AllowedBytes != 256 {
		t.Fatalf("attempt %+v", a)
	}
	if b, _ := os.ReadFile(p.skill); string(b) != v2 {
		t.Fatalf("the candidate is not v1 with the edit applied:\n%s", b)
	}
	out, errOut, code = sepad(t, p.env(), nil, "diff", "deploy", "v1", "v2", "--home", p.home)
	if code != 0 || !strings.Contains(out, "# the mutator's 1 edit of v1:\n# 1. replace \"Run the checks, then make deploy.\" with \"Run the checks first and stop at the first failure; then make deploy.\": runs went on after a failed step\n") {
		t.Fatalf("sepad diff: %d\n%s%s", code, out, errOut)
	}

	// v2 runs worse: rolled back to v1.
	time.Sleep(600 * time.Millisecond) // the watcher's debounce
	p.turns(5, 3, badAnswer)
	p.release()
	waitFor(t, "v2 rolled back to v1", fileIs(p.skill, v1))
	waitDecision(t, p, "v2's rollback recorded", func(r map[string]any) bool {
		return r["kind"] == "rollback" && r["from"] == a.To
	})

	// The same edit set again: refused by rejected_before before anything
	// is written.
	before := len(srv.Requests())
	out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home)
	if code != 1 || !strings.Contains(out, "the mutator's answer was refused: the proposed text is v2") || !strings.Contains(out, "v2") {
		t.Fatalf("the rejected edit set again: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(p.skill); string(b) != v1 {
		t.Fatalf("a repeated rejected edit set changed the file:\n%s", b)
	}
	var shown bool
	for _, r := range srv.Requests()[before:] {
		if r.Key == "edits-v1" && bytes.Contains(r.Body, []byte("Already tried, made it worse")) && bytes.Contains(r.Body, []byte("Run the checks first and stop at the first failure")) {
			shown = true
		}
	}
	if !shown {
		t.Error("the request did not show the rejected change")
	}
	as := attempts(t, p)
	if len(as) != 3 || as[0].Rule != evolve.RuleEditBudget || !as[1].Applied || as[2].Outcome != evolve.OutcomeRefused || as[2].Rule != "rejected_before" || as[2].To != "" {
		t.Fatalf("attempts %+v", as)
	}
	// No candidate after the rollback: no third version was written.
	out, _, _ = sepad(t, p.env(), nil, "api", "/v1/skills/deploy", "--home", p.home)
	if !strings.Contains(out, `"version_count": 2,`) {
		t.Errorf("a third version exists after the refusal:\n%s", out)
	}
}
