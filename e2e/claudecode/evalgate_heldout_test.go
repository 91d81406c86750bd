package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// TestEvalGateHeldOutCases is the held-out gate on the real CLI: the
// deploy skill (gateSkill) has a suite of two cases, each with a grader
// looking for one phrase in the eval run's trace (where the Skill call
// puts the text): alpha for "stop at the first failure", beta for "say
// which check failed". The suite's cases in name order are alpha (shown
// to the mutator) and beta (held out). An evolved text is judged on beta alone: one that drops
// beta's phrase is refused naming beta, and the request the mutator got
// showed alpha's prompt, never beta's; one that drops alpha's phrase but
// keeps beta's passes, since alpha, which the mutator saw, is not what
// judges it.
func TestEvalGateHeldOutCases(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		dir := filepath.Join(e.Project, ".claude", "skills", "deploy")
		base := gateSkill(" and stop at the first failure; say which check failed")
		skill := e.write(filepath.Join(dir, "SKILL.md"), base)
		for _, cs := range []struct{ name, pattern string }{{"alpha", "stop at the first failure"}, {"beta", "say which check failed"}} {
			e.write(filepath.Join(dir, "evals", cs.name, "prompt.md"), "---\nruns: 1\nmax_turns: 3\n---\nDeploy the app, case "+cs.name+" @@held"+cs.name+"@@\n")
			e.write(filepath.Join(dir, "evals", cs.name, "graders", "steps.md"), "---\ntype: regex\ntarget: trace\nmatch: contains\npattern: "+cs.pattern+"\n---\nThe skill the run was given says to "+cs.pattern+".\n")
			e.API.Set("held"+cs.name, fakeclaude.Script{{Tools: []fakeclaude.Tool{skillCall("deploy")}}, {Text: "Deployed."}})
		}
		// The mutator: a command that keeps the request and answers with
		// the file named by the test.
		answerFile := filepath.Join(e.Root, "answer.md")
		req := filepath.Join(e.Root, "request.txt")
		mut := e.write(filepath.Join(e.Root, "mutator.sh"), "#!/bin/sh\ncat > "+req+"\ncat "+answerFile+"\n")
		e.write(filepath.Join(e.Home, ".config", "sepa", "config.yaml"), "mutation:\n  claude: "+c.Bin+"\n  mutator: [sh, "+mut+"]\n  eval_gate:\n    threshold: 1\n")
		for i := 0; i < 3; i++ {
			key := "heldsession" + string(rune('a'+i))
			e.API.Set(key, fakeclaude.Script{{Tools: []fakeclaude.Tool{skillCall("deploy")}}, {Tools: []fakeclaude.Tool{bash("exit 1")}}, {Text: answer}})
			e.claude("-p", "deploy @@"+key+"@@")
		}
		e.Env = append(e.Env, e.claudeEnv()[len(e.baseEnv()):]...) // the gate's claude talks to the fake server
		d := e.startDaemon("--http", freeAddr(t))
		defer d.stop()
		if xs := d.waitExecutions(3); len(xs) < 3 {
			t.Fatalf("%d executions stored", len(xs))
		}
		evolve := func() (outcome, rule, words string) {
			out, errOut, code := e.sepad("evolve", "deploy", "--json")
			var a struct {
				Outcome string `json:"outcome"`
				Rule    string `json:"rule"`
				Words   string `json:"words"`
			}
			if err := json.Unmarshal([]byte(out), &a); err != nil {
				t.Fatalf("evolve: exit %d\n%s%s\ndaemon:\n%s", code, out, errOut, d.log.String())
			}
			return a.Outcome, a.Rule, a.Words
		}

		// Drops beta's phrase: refused on beta, the file untouched.
		e.write(answerFile, gateSkill(" and stop at the first failure; report it"))
		outcome, rule, words := evolve()
		if outcome != "refused" || rule != "eval_gate" || !strings.Contains(words, "case beta (0.00) is below the threshold 1.00 (score 0.00 over 1 case × 1 run)") ||
			!strings.Contains(words, "held-out cases only (the mutator was shown the others): beta") {
			t.Fatalf("an answer failing the held-out case: %s %s: %s\ndaemon:\n%s", outcome, rule, words, d.log.String())
		}
		if b, _ := os.ReadFile(skill); string(b) != base {
			t.Fatalf("a refused answer was written:\n%s", b)
		}
		b, _ := os.ReadFile(req)
		if r := string(b); !strings.Contains(r, "(1 shown, 1 held out)") || !strings.Contains(r, "case alpha") || strings.Contains(r, "beta") {
			t.Errorf("the request does not show alpha alone:\n%s", r)
		}

		// Drops alpha's phrase, keeps beta's: alpha is not the judge.
		e.write(answerFile, gateSkill("; say which check failed"))
		outcome, _, words = evolve()
		if outcome != "candidate" || !strings.Contains(words, "eval gate held: 1.00 over 1 case × 1 run") {
			t.Fatalf("an answer passing the held-out case: %s: %s\ndaemon:\n%s", outcome, words, d.log.String())
		}
		if b, _ := os.ReadFile(skill); !strings.Contains(string(b), "; say which check failed") {
			t.Fatalf("the held answer was not written:\n%s", b)
		}
	}
}
