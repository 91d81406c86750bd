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

// gateSkill is a project skill's text; a deterministic grader of its
// suite looks for "stop at the first failure" in the eval run's trace,
// where the Skill call puts the text the run was given.
func gateSkill(step string) string {
	return "---\nname: deploy\ndescription: Deploy the app. Use when asked to deploy.\n---\n# Deploy\n\n1. Run the checks" + step + ".\n2. Ship it.\n"
}

// gateSuite writes the project skill deploy (gateSkill, told to stop at
// the first failure) and its suite of one case, ships, whose grader looks
// for "stop at the first failure" in the trace, and scripts the case's
// run on the fake server. It returns the skill's SKILL.md.
func (e *env) gateSuite() string {
	dir := filepath.Join(e.Project, ".claude", "skills", "deploy")
	skill := e.write(filepath.Join(dir, "SKILL.md"), gateSkill(" and stop at the first failure"))
	e.write(filepath.Join(dir, "evals", "ships", "prompt.md"), "---\nruns: 1\nmax_turns: 3\n---\nDeploy the app @@gateships@@\n")
	e.write(filepath.Join(dir, "evals", "ships", "graders", "steps.md"), "---\ntype: regex\ntarget: trace\nmatch: contains\npattern: stop at the first failure\n---\nThe skill the run was given says to stop at the first failure.\n")
	e.API.Set("gateships", fakeclaude.Script{{Tools: []fakeclaude.Tool{skillCall("deploy")}}, {Text: "Deployed."}})
	return skill
}

// TestEvalGateRefusesCandidate is the eval gate on the real CLI against
// the fake model server: a project skill with a suite beside its SKILL.md
// (run by `sepad eval` on a private plugin, its result under evals in
// `grades --json`), and mutation.eval_gate set; a proposal that drops
// what the suite checks is refused naming the failing case and nothing is
// written, and so is an evolved one (the mutator a command that answers
// with it); a good one passes the gate and is the candidate; the
// decisions say so.
func TestEvalGateRefusesCandidate(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		skill := e.gateSuite()
		// The mutator of sepad evolve answers with a text that fails the
		// suite.
		bad := e.write(filepath.Join(e.Root, "bad.md"), gateSkill(", then go on whatever happens"))
		e.write(filepath.Join(e.Home, ".config", "sepa", "config.yaml"), "mutation:\n  claude: "+c.Bin+"\n  mutator: [cat, "+bad+"]\n  eval_gate:\n    threshold: 1\n    max_drop: 0\n")

		// Real sessions first: sepad knows deploy, and three executions
		// of its version let a proposal through too_soon.
		for i, cmd := range []string{"echo checks ok", "exit 1", "exit 1"} {
			key := "gatesession" + string(rune('a'+i))
			e.API.Set(key, fakeclaude.Script{{Tools: []fakeclaude.Tool{skillCall("deploy")}}, {Tools: []fakeclaude.Tool{bash(cmd)}}, {Text: answer}})
			e.claude("-p", "deploy @@"+key+"@@")
		}
		// The daemon runs the gate with claude: give both the fake server.
		e.Env = append(e.Env, e.claudeEnv()[len(e.baseEnv()):]...)
		d := e.startDaemon("--http", freeAddr(t))
		defer d.stop()
		if xs := d.waitExecutions(3); len(xs) < 3 {
			t.Fatalf("%d executions stored", len(xs))
		}
		spool := len(e.spool())

		// sepad eval on the project skill: the baseline's recorded score.
		start := time.Now()
		out, errOut, code := e.sepad("eval", "deploy")
		t.Logf("sepad eval (1 case × 1 run, two arms): %v", time.Since(start).Round(time.Millisecond))
		if code != 0 || !strings.Contains(out, "pass ships") || !strings.Contains(out, "evals 1.00 over 1 case × 1 run, +1.00 against no skill") {
			t.Fatalf("sepad eval: exit %d\n%s%s", code, out, errOut)
		}
		out, _, _ = e.sepad("grades", "--json")
		var grades struct {
			Grades []struct {
				Skill string `json:"skill"`
				Evals *struct {
					Score  float64 `json:"score"`
					Passed bool    `json:"passed"`
				} `json:"evals"`
			} `json:"grades"`
		}
		if err := json.Unmarshal([]byte(out), &grades); err != nil {
			t.Fatalf("grades --json: %v\n%s", err, out)
		}
		var found bool
		for _, g := range grades.Grades {
			if g.Skill == "deploy" && g.Evals != nil && g.Evals.Score == 1 && g.Evals.Passed {
				found = true
			}
		}
		if !found {
			t.Fatalf("deploy's evals not in grades --json:\n%s", out)
		}

		// A candidate that drops the step the suite checks: refused, by
		// hand and evolved.
		start = time.Now()
		out, errOut, code = e.sepad("propose", "deploy", bad)
		t.Logf("a proposal refused by the gate: %v", time.Since(start).Round(time.Millisecond))
		if code == 0 || !strings.Contains(errOut, "proposal refused by the eval gate: case ships (0.00) is below the threshold 1.00") || !strings.Contains(errOut, "case ships (0.00) is below the threshold 1.00") ||
			!strings.Contains(errOut, "baseline 1.00, drop 1.00 (allowed 0.00)") {
			t.Fatalf("a failing candidate: exit %d\n%s%s\ndaemon:\n%s", code, out, errOut, d.log.String())
		}
		if b, _ := os.ReadFile(skill); string(b) != gateSkill(" and stop at the first failure") {
			t.Fatalf("a refused candidate was written:\n%s", b)
		}

		out, errOut, code = e.sepad("evolve", "deploy", "--json")
		var a struct {
			Outcome string `json:"outcome"`
			Rule    string `json:"rule"`
			Applied bool   `json:"applied"`
			Words   string `json:"words"`
		}
		json.Unmarshal([]byte(out), &a)
		if a.Outcome != "refused" || a.Rule != "eval_gate" || a.Applied || !strings.Contains(a.Words, "case ships (0.00) is below the threshold 1.00") {
			t.Fatalf("an evolved candidate that fails: exit %d %+v\n%s%s", code, a, out, errOut)
		}
		if b, _ := os.ReadFile(skill); string(b) != gateSkill(" and stop at the first failure") {
			t.Fatalf("a refused evolved candidate was written:\n%s", b)
		}

		// A candidate that keeps it: the gate holds, it is the candidate.
		good := e.write(filepath.Join(e.Root, "good.md"), gateSkill(" and stop at the first failure; say which check failed"))
		start = time.Now()
		out, errOut, code = e.sepad("propose", "deploy", good)
		t.Logf("a proposal the gate let through: %v", time.Since(start).Round(time.Millisecond))
		if code != 0 || !strings.Contains(out, "it is the candidate; eval gate held: 1.00 over 1 case × 1 run, every case at least 1.00; baseline 1.00, drop 0.00 (allowed 0.00)") {
			t.Fatalf("a passing candidate: exit %d\n%s%s\ndaemon:\n%s", code, out, errOut, d.log.String())
		}
		if b, _ := os.ReadFile(skill); !strings.Contains(string(b), "say which check failed") {
			t.Fatalf("the passing candidate was not written:\n%s", b)
		}

		out, _, _ = e.sepad("decisions", "deploy", "--json")
		var decs struct {
			Decisions []struct {
				Payload struct {
					Kind    string `json:"kind"`
					Applied bool   `json:"applied"`
					Words   string `json:"words"`
					Gate    *struct {
						Held    bool     `json:"held"`
						Failing []string `json:"failing"`
						Score   float64  `json:"score"`
					} `json:"eval_gate"`
				} `json:"payload"`
			} `json:"decisions"`
		}
		if err := json.Unmarshal([]byte(out), &decs); err != nil {
			t.Fatalf("decisions --json: %v\n%s", err, out)
		}
		var refused, held int
		for _, dd := range decs.Decisions {
			p := dd.Payload
			switch {
			case p.Kind == "eval_gate" && !p.Applied && p.Gate != nil && !p.Gate.Held && len(p.Gate.Failing) == 1 && p.Gate.Failing[0] == "ships (0.00)":
				refused++
			case p.Kind == "proposal" && p.Applied && p.Gate != nil && p.Gate.Held && p.Gate.Score == 1:
				held++
			}
		}
		if refused != 2 || held != 1 {
			t.Errorf("decisions (refused %v, held %v):\n%s", refused, held, out)
		}
		// The suite's runs are no real use.
		if n := len(e.spool()); n != spool {
			t.Errorf("the eval runs added %d bytes to the spool:\n%s", n-spool, e.spool()[spool:])
		}
		b, _ := os.ReadFile(filepath.Join(e.State, "evals.jsonl"))
		if strings.Count(string(b), `"source":"eval gate"`) != 3 || strings.Count(string(b), `"source":"sepad eval"`) != 1 {
			t.Errorf("the evidence file:\n%s", b)
		}
		if fs, _ := filepath.Glob(filepath.Join(filepath.Dir(skill), "evals", "results")); len(fs) != 0 {
			t.Errorf("claude wrote results into the skill's directory: %v", fs)
		}
	}
}
