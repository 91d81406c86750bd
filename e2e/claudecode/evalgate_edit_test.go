package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// TestEvalGatePersonEdit is `sepad eval SKILL --gate` on the real CLI
// against the fake model server: a person's edit of a project skill with
// a suite beside its SKILL.md is gated on request against the version in
// force, with no eval_gate configured (the suite's threshold, no drop):
// an edit that drops what the suite checks is refused (exit 1, the
// failing case named, the file left as the person wrote it), one that
// keeps it holds (exit 0); the baseline's run is recorded once and
// reused.
func TestEvalGatePersonEdit(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		skill := e.gateSuite()
		e.write(filepath.Join(e.Home, ".config", "sepa", "config.yaml"), "mutation:\n  claude: "+c.Bin+"\n")

		// A real session: sepad knows deploy and its version in force.
		e.API.Set("editsession", fakeclaude.Script{{Tools: []fakeclaude.Tool{skillCall("deploy")}}, {Tools: []fakeclaude.Tool{bash("echo checks ok")}}, {Text: answer}})
		e.claude("-p", "deploy @@editsession@@")
		e.Env = append(e.Env, e.claudeEnv()[len(e.baseEnv()):]...)
		d := e.startDaemon("--http", freeAddr(t))
		defer d.stop()
		if xs := d.waitExecutions(1); len(xs) < 1 {
			t.Fatalf("%d executions stored", len(xs))
		}
		if out, errOut, code := e.sepad("eval", "deploy", "--gate"); code != 0 || !strings.Contains(out, "no edit to gate") {
			t.Fatalf("the version in force itself: exit %d\n%s%s", code, out, errOut)
		}

		// The person's edit drops the step the suite checks.
		bad := gateSkill(", then go on whatever happens")
		os.WriteFile(skill, []byte(bad), 0o644)
		start := time.Now()
		out, errOut, code := e.sepad("eval", "deploy", "--gate")
		t.Logf("sepad eval --gate, baseline and edit (2 suite runs): %v", time.Since(start).Round(time.Millisecond))
		if code != 1 || !strings.Contains(out, "against v1") || !strings.Contains(out, "refused by eval gate: case ships (0.00) is below the threshold 1.00") ||
			!strings.Contains(out, "baseline 1.00, drop 1.00 (allowed 0.00)") || !strings.Contains(errOut, "the edit is refused") {
			t.Fatalf("an edit that fails the suite: exit %d\n%s%s\ndaemon:\n%s", code, out, errOut, d.log.String())
		}
		if b, _ := os.ReadFile(skill); string(b) != bad {
			t.Fatalf("the gate changed the person's file:\n%s", b)
		}

		// An edit that keeps it holds; the baseline's recorded score is
		// reused (one suite run).
		os.WriteFile(skill, []byte(gateSkill(" and stop at the first failure; say which check failed")), 0o644)
		start = time.Now()
		out, errOut, code = e.sepad("eval", "deploy", "--gate", "--json")
		t.Logf("sepad eval --gate, the edit only (1 suite run): %v", time.Since(start).Round(time.Millisecond))
		var v struct {
			Verdict struct {
				Held     bool    `json:"held"`
				Score    float64 `json:"score"`
				Baseline string  `json:"baseline"`
				Words    string  `json:"words"`
			} `json:"verdict"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil || !v.Verdict.Held || v.Verdict.Score != 1 || v.Verdict.Baseline == "" ||
			!strings.Contains(v.Verdict.Words, "eval gate held: 1.00 over 1 case × 1 run, every case at least 1.00; baseline 1.00, drop 0.00 (allowed 0.00)") {
			t.Fatalf("an edit that keeps the step: exit %d %+v\n%s%s", code, v, out, errOut)
		}
		b, _ := os.ReadFile(filepath.Join(e.State, "evals.jsonl"))
		if n := strings.Count(string(b), `"source":"sepad eval --gate"`); n != 3 {
			t.Errorf("%d suite runs recorded, want 3 (the baseline once, each edit):\n%s", n, b)
		}
	}
}
