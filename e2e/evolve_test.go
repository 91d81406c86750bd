package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/internal/fakeclaude"
	"github.com/sepad/sepad/internal/testbin"
)

// startDaemonWith starts `sepad run` with the project's environment and
// more (the mutator's).
func startDaemonWith(t *testing.T, p *project, extra []string) *daemon {
	t.Helper()
	return startDaemonExactEnv(t, p, append(append(os.Environ(), p.env()...), extra...))
}

// attempts are the skill's evolution attempts, oldest first, read from
// `sepad decisions --json` (through the daemon).
func attempts(t *testing.T, p *project) []evolve.Attempt {
	t.Helper()
	out, errOut, code := sepad(t, p.env(), nil, "decisions", "deploy", "--home", p.home, "--json", "--limit", "1000")
	if code != 0 {
		t.Fatalf("decisions: %d %s", code, errOut)
	}
	var doc struct {
		Decisions []struct {
			Payload json.RawMessage `json:"payload"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var as []evolve.Attempt
	for i := len(doc.Decisions) - 1; i >= 0; i-- {
		var a evolve.Attempt
		json.Unmarshal(doc.Decisions[i].Payload, &a)
		if a.Kind == evolve.KindEvolve {
			as = append(as, a)
		}
	}
	return as
}

// mutatorScript is a command mutator: it answers the current text with
// one line added (unique, so that no two answers are the same version;
// an earlier one replaced, so that the text does not grow).
func mutatorScript(t *testing.T, dir string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the command mutator is a shell script")
	}
	path := filepath.Join(dir, "mutator.sh")
	writeFile(t, path, "#!/bin/sh\nsed -n '/^=== BEGIN CURRENT TEXT ===$/,/^=== END CURRENT TEXT ===$/p' | sed '1d;$d' | grep -v '^Check the exit status of every step'\n"+
		"echo \"Check the exit status of every step ($$).\"\n")
	os.Chmod(path, 0o755)
	return path
}

// TestEvolveLimitsHold drives `sepad evolve` with a command mutator:
// the answer becomes the candidate, repeated triggers are refused by the
// limits (naming the rule), and automatic mode evolves a weak skill once
// per candidate, telling the person at every step.
func TestEvolveLimitsHold(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	script := mutatorScript(t, t.TempDir())
	p.config("  mutator: [" + script + "]\n  evolve_below: B\n")
	p.writeSkill("Run the checks, then make deploy.\n\n## Rollback\n\nUse make rollback.")
	d := startDaemonEnv(t, p)
	p.turns(5, 2, badAnswer)
	p.release()
	waitRuns(t, p, 5)

	// --dry-run: the request, nothing sent.
	out, errOut, code := sepad(t, p.env(), nil, "evolve", "deploy", "--dry-run", "--home", p.home)
	if code != 0 {
		t.Fatalf("evolve --dry-run: %d %s", code, errOut)
	}
	for _, w := range []string{"## Strategy: constraint_add (risk low)", "error rate", "failed Bash: \"Exit code 2\\nmake: *** failed\"", evolve.BeginText + "\n---\nname: deploy"} {
		contains(t, out, w)
	}
	contains(t, errOut, "dry run: strategy constraint_add")
	if as := attempts(t, p); len(as) != 0 {
		t.Fatalf("a dry run was recorded: %+v", as)
	}

	before, _ := os.ReadFile(p.skill)
	out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("evolve: %d %s %s", code, out, errOut)
	}
	after, _ := os.ReadFile(p.skill)
	if !bytes.HasPrefix(after, before) || !bytes.Contains(after, []byte("Check the exit status of every step")) {
		t.Fatalf("the candidate is not the mutator's answer:\n%s", after)
	}

	// Repeated triggers: refused by too_soon (no run of the candidate
	// yet), naming the rule; the mutator is not asked.
	for i := 0; i < 3; i++ {
		_, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home)
		if code != 1 || !strings.Contains(errOut, "nothing evolved: 0 executions since the last change (need 3, 3 more)") {
			t.Fatalf("repeated evolve: exit %d, %s", code, errOut)
		}
	}
	if as := attempts(t, p); len(as) != 1 || as[0].Outcome != evolve.OutcomeCandidate || as[0].Strategy != "constraint_add" {
		t.Fatalf("attempts %+v", as)
	}
	// Two high-risk mutations a day, then high_risk_limit.
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			p.turn(2, badAnswer)
		}
		p.release()
		waitRuns(t, p, 8+3*i)
		out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--strategy", "simplify", "--home", p.home)
		if i < 2 && code != 0 {
			t.Fatalf("high-risk evolve %d: %d %s %s", i+1, code, out, errOut)
		}
		if i == 2 && (code != 1 || !strings.Contains(errOut, "nothing evolved: 2 high-risk mutations of this skill in the last 24 hours (limit 2)")) {
			t.Fatalf("third high-risk evolve: %d %s %s", code, out, errOut)
		}
	}
	out, errOut, code = sepad(t, p.env(), nil, "strategies", "deploy", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("strategies: %d %s", code, errOut)
	}
	checkDocumented(t, "GET /v1/strategies", 0, out)
	var sv struct {
		Strategies []evolve.StrategyStat `json:"strategies"`
	}
	json.Unmarshal([]byte(out), &sv)
	uses := map[string]int{}
	for _, s := range sv.Strategies {
		uses[s.Strategy] = s.Uses
	}
	if uses["constraint_add"] != 1 || uses["simplify"] != 2 {
		t.Errorf("strategy uses %v", uses)
	}

	// With no daemon, the CLI does the same over the database.
	d.stop(t)
	out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--dry-run", "--home", p.home)
	if code != 0 || !strings.Contains(out, evolve.BeginText) {
		t.Fatalf("evolve --dry-run without a daemon: %d %s", code, errOut)
	}
	out, errOut, code = sepad(t, p.env(), nil, "strategies", "--home", p.home)
	if code != 0 || !strings.Contains(out, "simplify") || !strings.Contains(out, "STRATEGY") {
		t.Fatalf("strategies without a daemon: %d %s%s", code, out, errOut)
	}
	t.Logf("sepad strategies:\n%s", out)
}

// waitRuns waits until the daemon stored n executions of the skill.
func waitRuns(t *testing.T, p *project, n int) {
	t.Helper()
	want := fmt.Sprintf(`"executions": %d,`, n)
	waitFor(t, want, func() bool {
		out, _, _ := sepad(t, p.env(), nil, "api", "/v1/skills/deploy", "--home", p.home)
		return strings.Contains(out, want)
	})
}

// claudeForEvolve is an installed Claude Code (scripts/claude-code.sh),
// or a skip in one line (a failure with SEPAD_REQUIRE_CLAUDE=1).
func claudeForEvolve(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("real Claude Code as the mutator: skipped in -short mode")
	}
	return testbin.Claude(t, testbin.ClaudeVersions("2.1.328")[0])
}

// offline is the environment that points Claude Code at the fake model
// server, with nothing of the test machine's own Claude settings.
func offline(url string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "CLAUDE") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1")
}

// startDaemonOffline starts `sepad run` with env as the whole base
// environment (not the test process's).
func startDaemonOffline(t *testing.T, p *project, env []string) *daemon {
	t.Helper()
	return startDaemonExactEnv(t, p, append(env, p.env()...))
}

// startDaemonExactEnv starts `sepad run` for p with exactly the
// environment env, killed when the test ends (its log shown on failure).
func startDaemonExactEnv(t *testing.T, p *project, env []string) *daemon {
	t.Helper()
	testbin.Consult() // the result depends on the binary's sources
	cmd := exec.Command(sepadBin, "run", "--home", p.home, "--log-level", "info")
	cmd.Env = env
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &daemon{cmd: cmd, stderr: &e, done: make(chan error, 1)}
	go func() { d.done <- cmd.Wait() }()
	t.Cleanup(func() {
		d.kill()
		if t.Failed() {
			t.Logf("daemon log:\n%s", e.String())
		}
	})
	return d
}

func skillText(body string) string {
	return "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\n" + body + "\n"
}

// waitDecision waits for a decision record of kind/rule about version to.
func waitDecision(t *testing.T, p *project, what string, match func(r map[string]any) bool) {
	t.Helper()
	waitFor(t, what, func() bool {
		out, _, code := sepad(t, p.env(), nil, "decisions", "deploy", "--home", p.home, "--json", "--limit", "1000")
		if code != 0 {
			return false
		}
		var doc struct {
			Decisions []struct {
				Payload map[string]any `json:"payload"`
			} `json:"decisions"`
		}
		json.Unmarshal([]byte(out), &doc)
		for _, d := range doc.Decisions {
			if match(d.Payload) {
				return true
			}
		}
		return false
	})
}

// TestEvolveWithClaudeCode is the loop with the real Claude Code as the
// mutator and the fake model server as its model: a weak skill evolves
// into a candidate, sessions run, the engine accepts the better candidate
// and rolls back a worse one, the strategy statistics follow, and an
// answer that drops a required section is refused naming the rule.
func TestEvolveWithClaudeCode(t *testing.T) {
	bin := claudeForEvolve(t)
	srv, err := fakeclaude.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	p := newProject(t)
	p.config("  claude: " + bin + "\n  mutator_timeout: 2m\n")
	v1 := skillText("Run the checks, then make deploy. @@evolve-v1@@\n\n## Rollback\n\nUse make rollback.")
	v2 := skillText("Run the checks first and stop at the first failure; then make deploy. @@evolve-v2@@\n\n## Rollback\n\nUse make rollback.")
	v3 := skillText("Deploy fast: skip the checks. @@evolve-v3@@\n\n## Rollback\n\nUse make rollback.")
	dropped := skillText("Run the checks, then make deploy. @@evolve-v3@@")
	srv.Set("evolve-v1", fakeclaude.Script{{Text: "```markdown\n" + v2 + "```", Usage: &fakeclaude.Usage{Input: 3000, Output: 400}}})
	writeFile(t, p.skill, v1)
	startDaemonOffline(t, p, offline(srv.URL))

	// v1 is weak: half its tool calls fail.
	p.turns(5, 2, badAnswer)
	p.release()
	waitRuns(t, p, 5)
	out, errOut, code := sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("evolve: %d %s %s", code, out, errOut)
	}
	checkDocumented(t, "POST /v1/skills/{skill}/evolve", 0, out)
	var a evolve.Attempt
	json.Unmarshal([]byte(out), &a)
	if !a.Applied || a.Strategy != "constraint_add" || a.Mutator != "claude-code" || a.CostUSD == nil || *a.CostUSD <= 0 || a.OutputTokens != 400 {
		t.Fatalf("attempt %+v", a)
	}
	if b, _ := os.ReadFile(p.skill); string(b) != v2 {
		t.Fatalf("the candidate is not Claude Code's answer:\n%s", b)
	}
	// The model got the request: the strategy, the evidence, the text;
	// and no tools.
	var asked bool
	for _, r := range srv.Requests() {
		if r.Key != "evolve-v1" {
			continue
		}
		asked = true
		for _, w := range []string{"## Strategy: constraint_add", `make: *** failed`, evolve.BeginText} {
			if !bytes.Contains(r.Body, []byte(w)) {
				t.Errorf("the model's request lacks %q", w)
			}
		}
		var body struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(r.Body, &body)
		if len(body.Tools) != 0 {
			t.Errorf("the mutator's model was offered %d tools", len(body.Tools))
		}
	}
	if !asked {
		t.Fatal("the fake model server never saw the mutation request")
	}
	// The mutator's own run is not recorded as a session (hooks off).
	spool, _ := os.ReadFile(filepath.Join(p.home, "events.jsonl"))
	if bytes.Contains(spool, []byte("sepad-evolve-")) {
		t.Error("the mutator's Claude Code session reached the spool")
	}

	// Repeated triggers before v2 ran: refused by too_soon, and the
	// model is not asked again.
	for i := 0; i < 2; i++ {
		_, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home)
		if code != 1 || !strings.Contains(errOut, "nothing evolved: 0 executions since the last change") {
			t.Fatalf("repeated evolve: exit %d, %s", code, errOut)
		}
	}
	var mutations int
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Key, "evolve-") {
			mutations++
		}
	}
	if mutations != 1 {
		t.Fatalf("the model was asked %d times for one mutation", mutations)
	}

	// v2 runs better: accepted.
	p.turns(5, 1, goodAnswer)
	p.release()
	waitDecision(t, p, "v2 accepted", func(r map[string]any) bool {
		return r["kind"] == "decision" && r["to"] == a.To && strings.Contains(fmt.Sprint(r["rule"]), "improvement")
	})

	// v2 is on a plateau (mean above 85, variance below 5 over the last 3
	// runs): the stable rule refuses before the mutator is asked.
	srv.Set("evolve-v2", fakeclaude.Script{{Text: v3}})
	out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home)
	if code != 1 || !strings.Contains(errOut, "nothing evolved: the skill is stable: mean ") || !strings.Contains(errOut, " > 85 and variance ") {
		t.Fatalf("evolve on a plateau: exit %d\n%s%s", code, out, errOut)
	}
	p.turns(2, 2, goodAnswer)
	p.release()
	waitRuns(t, p, 12)

	// The next evolution (strategy named) answers worse: rolled back to v2.
	out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--strategy", "clarify", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("second evolve: %d %s %s", code, out, errOut)
	}
	var a2 evolve.Attempt
	json.Unmarshal([]byte(out), &a2)
	if b, _ := os.ReadFile(p.skill); string(b) != v3 || !a2.Applied || a2.FromSeq != 2 || a2.ToSeq != 3 {
		t.Fatalf("second attempt %+v, file %s", a2, b)
	}
	time.Sleep(600 * time.Millisecond) // the watcher's debounce
	p.turns(5, 3, badAnswer)
	p.release()
	waitFor(t, "v3 rolled back to v2", fileIs(p.skill, v2))
	waitDecision(t, p, "v3's rollback recorded", func(r map[string]any) bool {
		return r["kind"] == "rollback" && r["from"] == a2.To
	})

	out, errOut, code = sepad(t, p.env(), nil, "strategies", "deploy", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("strategies: %d %s", code, errOut)
	}
	checkDocumented(t, "GET /v1/strategies", 0, out)
	var sv struct {
		Strategies []evolve.StrategyStat `json:"strategies"`
	}
	json.Unmarshal([]byte(out), &sv)
	var uses, decided, improved int
	for _, s := range sv.Strategies {
		uses += s.Uses
		decided += s.Decided
		improved += s.Improvements
		if s.Strategy == "constraint_add" && (s.Improvements != 1 || s.MeanDelta <= 0 || s.CostUSD <= 0) {
			t.Errorf("constraint_add %+v", s)
		}
		if s.Strategy == "clarify" && (s.Uses != 1 || s.Decided != 1 || s.Improvements != 0 || s.MeanDelta >= 0 || s.Weight >= 1) {
			t.Errorf("%s (rolled back) %+v", s.Strategy, s)
		}
	}
	if uses != 2 || decided != 2 || improved != 1 {
		t.Errorf("strategies: %d uses, %d decided, %d improved; want 2, 2, 1:\n%s", uses, decided, improved, out)
	}

	// An answer that drops the Rollback section is refused, naming the
	// rule; the file is left alone.
	srv.Set("evolve-v2", fakeclaude.Script{{Text: dropped}})
	out, errOut, code = sepad(t, p.env(), nil, "evolve", "deploy", "--home", p.home)
	if code != 1 || !strings.Contains(out, `refused: 1 of the baseline's 2 headings are missing: "## Rollback"`) {
		t.Fatalf("evolve with a section dropped: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(p.skill); string(b) != v2 {
		t.Fatalf("a refused answer changed the file:\n%s", b)
	}
	as := attempts(t, p)
	if len(as) != 3 || as[2].Outcome != evolve.OutcomeRefused || as[2].Rule != "headings" {
		t.Fatalf("attempts %+v", as)
	}
}

// notices are the pending notices (`sepad notices --json`).
func notices(t *testing.T, p *project) string {
	t.Helper()
	out, errOut, code := sepad(t, p.env(), nil, "notices", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("notices: %d %s", code, errOut)
	}
	return out
}

// TestEvolveAutoMode: with skills.deploy.mutation.evolve: auto, the daemon
// evolves the weak skill by itself, once per candidate, and tells the
// person at every step.
func TestEvolveAutoMode(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	script := mutatorScript(t, t.TempDir())
	p.config("  mutator: [" + script + "]\nskills:\n  deploy:\n    mutation:\n      evolve: auto\n")
	p.writeSkill("Run the checks, then make deploy.\n\n## Rollback\n\nUse make rollback.")
	v1, _ := os.ReadFile(p.skill)
	startDaemonEnv(t, p)
	p.turns(5, 2, badAnswer)
	p.release()
	waitFor(t, "an automatic evolution", func() bool { return len(attempts(t, p)) == 1 })
	a := attempts(t, p)[0]
	if !a.Auto || !a.Applied || a.Strategy != "constraint_add" {
		t.Fatalf("automatic attempt %+v", a)
	}
	waitFor(t, "the candidate in the file", func() bool { b, _ := os.ReadFile(p.skill); return !bytes.Equal(b, v1) })
	waitFor(t, "the attempt's notices", func() bool { return strings.Contains(notices(t, p), "sepad evolved deploy v1 → v2") })
	n := notices(t, p)
	contains(t, n, "sepad is evolving deploy v1 (D, ")
	contains(t, n, "with strategy constraint_add (low risk)")
	contains(t, n, "sepad evolved deploy v1 → v2")
	time.Sleep(600 * time.Millisecond) // the watcher's debounce

	// The candidate runs worse; while it is decided nothing more evolves.
	for i := 0; i < 5; i++ {
		p.turn(4, badAnswer)
		if i == 3 {
			waitRuns(t, p, 8) // the fourth is held until the next prompt
			if as := attempts(t, p); len(as) != 1 {
				t.Fatalf("%d attempts while the candidate was undecided", len(as))
			}
		}
	}
	p.release()
	waitFor(t, "the worse candidate rolled back", fileIs(p.skill, string(v1)))
	// The engine's own notice follows the restored file.
	waitFor(t, "the rollback's notice", func() bool { return strings.Contains(notices(t, p), "rolled back deploy v2 → v1") })
	time.Sleep(600 * time.Millisecond)

	// Back on v1: nothing evolves until 3 executions of it were seen.
	p.turns(2, 2, badAnswer)
	p.release()
	waitRuns(t, p, 12)
	if as := attempts(t, p); len(as) != 1 {
		t.Fatalf("%d attempts after 2 runs of the restored version", len(as))
	}
	p.turn(2, badAnswer)
	p.release()
	waitFor(t, "a second automatic evolution", func() bool { return len(attempts(t, p)) == 2 })
	as := attempts(t, p)
	if !as[1].Auto || !as[1].Time.After(as[0].Time) || as[1].FromSeq != 1 {
		t.Fatalf("second attempt %+v", as[1])
	}
}
