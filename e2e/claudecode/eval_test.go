package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// TestEval runs `sepad eval` on a plugin skill against the fake model
// server: claude plugin eval runs the plugin's suite (deterministic regex
// graders, a with- and a without-plugin arm), the result is recorded as
// evidence for the skill's version and shown under evals in `grades
// --json`, and the eval runs add nothing to the spool: sepad evaluates a
// private plugin of the skill's text and the suite, which leaves out the
// plugin's hooks (here they run sepad's hook; docs/security.md, "What an
// eval runs").
func TestEval(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		dir := e.writeAcme(filepath.Join(e.Root, "acme"), "")
		// acme also runs sepad's hook, as the sepad plugin does: the
		// private plugin sepad evaluates holds no hooks.
		e.write(filepath.Join(dir, "hooks", "hooks.json"), `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"`+hookBin+`","args":["hook"]}]}],`+
			`"UserPromptSubmit":[{"hooks":[{"type":"command","command":"`+hookBin+`","args":["hook"]}]}],`+
			`"Stop":[{"hooks":[{"type":"command","command":"`+hookBin+`","args":["hook"]}]}]}}`)
		e.write(filepath.Join(dir, "evals", "ships", "prompt.md"), "---\nruns: 1\nmax_turns: 3\n---\nDeploy the app @@evalships@@\n")
		e.write(filepath.Join(dir, "evals", "ships", "graders", "answer.md"), "---\ntype: regex\ntarget: last_message\nmatch: contains\npattern: shipped\n---\nThe answer says it shipped.\n")
		e.write(filepath.Join(dir, "evals", "rollback", "prompt.md"), "---\nruns: 1\nmax_turns: 3\n---\nRoll back the deploy @@evalrollback@@\n")
		e.write(filepath.Join(dir, "evals", "rollback", "graders", "answer.md"), "---\ntype: regex\ntarget: last_message\nmatch: contains\npattern: rolled back\n---\nThe answer says it rolled back.\n")
		e.API.Set("evalships", fakeclaude.Script{{Text: "All done: shipped."}})
		e.API.Set("evalrollback", fakeclaude.Script{{Text: "I could not do that."}})

		// A real session first: sepad knows acme:deploy and its version.
		e.API.Set("evalsession", fakeclaude.Script{
			{Tools: []fakeclaude.Tool{skillCall("acme:deploy")}},
			{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
			{Text: answer},
		})
		e.claude("-p", "deploy @@evalsession@@", "--plugin-dir", dir)
		d := e.startDaemon("--http", freeAddr(t))
		d.waitExecutions(1)
		before := len(e.spool())

		// sepad eval starts claude: give it the fake server.
		env := e.Env
		e.Env = append(e.Env, e.claudeEnv()[len(e.baseEnv()):]...)
		out, errOut, code := e.sepad("eval", "acme:deploy", "--claude", e.c.Bin, "--", "--ablation", "with-without")
		e.Env = env
		if code != 1 {
			if fs, _ := filepath.Glob(filepath.Join(dir, "evals", "results", "*", "aggregate-result.json")); len(fs) > 0 {
				b, _ := os.ReadFile(fs[0])
				t.Logf("result: %s", b)
			}
			t.Errorf("sepad eval exited %d, want 1 (a case below the threshold):\n%s%s", code, out, errOut)
		}
		if !strings.Contains(out, "acme:deploy") || !strings.Contains(out, "FAIL rollback") || !strings.Contains(out, "pass ships") || !strings.Contains(out, "evals 0.50 over 2 cases × 1 run") {
			t.Errorf("sepad eval printed:\n%s\nstderr:\n%s", out, errOut)
		}
		// The paths claude printed (its results, its report) and the one
		// sepad names are under $SEPA_HOME and still there.
		keep := regexp.MustCompile(`claude's results and report are kept in (\S+)`).FindStringSubmatch(errOut)
		if keep == nil || !strings.HasPrefix(keep[1], e.State) {
			t.Errorf("sepad eval does not say where the report is kept:\n%s", errOut)
		} else if _, err := os.Stat(filepath.Join(keep[1], "report.html")); err != nil {
			t.Errorf("the report: %v\n%s", err, errOut)
		}
		for _, p := range regexp.MustCompile(`/[^\s'"]*(?:report|result)[^\s'"]*`).FindAllString(errOut, -1) {
			if _, err := os.Stat(strings.TrimRight(p, ".,:;)")); err != nil {
				t.Errorf("sepad eval printed %s, which is gone: %v", p, err)
			}
		}
		if n := len(e.spool()); n != before {
			t.Errorf("the eval runs added %d bytes to the spool:\n%s", n-before, e.spool()[before:])
		}

		out, _, code = e.sepad("grades", "--json")
		d.stop()
		var doc struct {
			Grades []struct {
				Skill string `json:"skill"`
				Hash  string `json:"hash"`
				N     int    `json:"n"`
				Evals *struct {
					Score   float64  `json:"score"`
					Cases   int      `json:"cases"`
					Runs    int      `json:"runs"`
					Passed  bool     `json:"passed"`
					Failing []string `json:"failing"`
					Summary string   `json:"summary"`
					Delta   *float64 `json:"delta"`
				} `json:"evals"`
			} `json:"grades"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("grades --json (exit %d): %v\n%s", code, err, out)
		}
		var found bool
		for _, g := range doc.Grades {
			if g.Skill != "acme:deploy" {
				continue
			}
			found = true
			ev := g.Evals
			if ev == nil || ev.Score != 0.5 || ev.Cases != 2 || ev.Runs != 1 || ev.Passed || len(ev.Failing) != 1 || ev.Failing[0] != "rollback" || ev.Delta == nil {
				t.Errorf("acme:deploy's evals: %+v\n%s", ev, out)
			}
		}
		if !found {
			t.Fatalf("no acme:deploy in grades --json:\n%s", out)
		}
		if b, err := os.ReadFile(filepath.Join(e.State, "evals.jsonl")); err != nil || !strings.Contains(string(b), `"source":"sepad eval"`) {
			t.Errorf("the evidence file: %v\n%s", err, b)
		}
	}
}
