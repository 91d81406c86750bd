package claudecode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/internal/fakeclaude"
)

// The evolve benchmark (issue 38 item 5; scripts/bench-evolve.sh, figures
// in BENCHMARKS.md): a skill with a planted flaw, evolved round after
// round by a scripted mutator, its runs real Claude Code sessions against
// the fake model server. It runs only with SEPAD_BENCH_EVOLVE=1: about
// 40 sessions, four minutes.

// benchSkill is the skill with its flaw: it never runs the tests, and
// `make deploy` refuses an untested build.
const benchSkill = "---\nname: deploy\ndescription: Deploy the app. Use when asked to deploy.\n---\n# Deploy\n\nDeploy the current branch to production.\n\n" +
	"## Steps\n\n- Run `make build`.\n- Run `make deploy`.\n\n" +
	"## Rollback\n\nIf production breaks after a deploy, run `make rollback` and tell the person which release was rolled back.\n\n" +
	"## Notes\n\nDeploys take about two minutes. Never deploy on a Friday afternoon without telling the team first.\n"

// benchMakefile is the project's: make deploy refuses a build that make
// test did not pass (the stamp is removed before each session).
const benchMakefile = "build:\n\t@echo build ok\n" +
	"test:\n\t@echo 'ok  \tshop\t0.012s' && touch .tested\n" +
	"deploy:\n\t@test -f .tested || { echo 'deploy: refusing an untested build (run make test first)' >&2; exit 2; }\n\t@echo deployed release 42\n"

// benchSession is what the fake model does with the skill's text: it
// runs the make targets the text names, in its order (a retry when the
// text says so); the commands really run. Without a test step, make
// deploy fails.
func benchSession(text string) fakeclaude.Script {
	s := fakeclaude.Script{{Tools: []fakeclaude.Tool{skillCall("deploy")}}, {Tools: []fakeclaude.Tool{bash("make build")}}}
	if strings.Contains(text, "make test") {
		s = append(s, fakeclaude.Step{Tools: []fakeclaude.Tool{bash("make test")}}, fakeclaude.Step{Tools: []fakeclaude.Tool{bash("make deploy")}})
		return append(s, fakeclaude.Step{Text: "## Deployed\n\n- built\n- the tests pass (make test)\n- release 42 is live\n\nNext: watch the dashboard."})
	}
	s = append(s, fakeclaude.Step{Tools: []fakeclaude.Tool{bash("make deploy")}})
	if strings.Contains(text, "once more") {
		s = append(s, fakeclaude.Step{Tools: []fakeclaude.Tool{bash("make deploy")}})
	}
	return append(s, fakeclaude.Step{Text: "Error: the deploy failed: make deploy refused an untested build."})
}

// benchAnswer is one answer of the scripted mutator and the idea it
// carries.
type benchAnswer struct {
	idea   string
	answer string
}

func editsAnswer(t *testing.T, idea string, edits ...evolve.Edit) benchAnswer {
	b, err := json.Marshal(edits)
	if err != nil {
		t.Fatal(err)
	}
	return benchAnswer{idea, string(b)}
}

// benchScript is the mutator's script, the same ideas in both arms: a
// retry (wrong: the build is still untested), the retry again (a
// mutator without a memory repeats itself), then the test step (the
// fix). The edit arm answers with edit lists; the whole-text arm with
// complete texts, each rewording passages it was not asked to change, as
// a whole-text rewrite does.
func benchScript(t *testing.T) (edits, whole []benchAnswer) {
	retry := evolve.Edit{Op: evolve.OpAdd, Passage: "- Run `make deploy`.", Text: "\n- If `make deploy` fails, run it once more.", Reason: "runs failed at make deploy and gave up"}
	fix := evolve.Edit{Op: evolve.OpAdd, Passage: "- Run `make build`.", Text: "\n- Run `make test`; deploy only after it passes.", Reason: "make deploy refuses an untested build: no run ran the tests"}
	edits = []benchAnswer{editsAnswer(t, "retry", retry), editsAnswer(t, "retry", retry), editsAnswer(t, "test step", fix)}
	head := "---\nname: deploy\ndescription: Deploy the app. Use when asked to deploy.\n---\n# Deploy\n\n"
	whole = []benchAnswer{
		{"retry", head + "Deploy the current branch to production.\n\n## Steps\n\n- Run `make build`.\n- Run `make deploy`.\n- If `make deploy` fails, run it once more.\n\n" +
			"## Rollback\n\nIf a deploy breaks production, run `make rollback` and report the release rolled back.\n\n## Notes\n\nDeploys take about two minutes.\n"},
		{"retry", head + "Deploy the current branch to production.\n\n## Steps\n\n- Run `make build`.\n- Run `make deploy`; when it fails, try it once more.\n\n" +
			"## Rollback\n\nIf production breaks after a deploy, run `make rollback` and say which release was rolled back.\n\n## Notes\n\nA deploy takes about two minutes.\n"},
		{"test step", head + "Deploy the current branch to production.\n\n## Steps\n\n- Run `make build`.\n- Run `make test` and deploy only once it passes.\n- Run `make deploy`.\n\n" +
			"## Rollback\n\nIf a deploy breaks production, run `make rollback` and tell the person which release was rolled back.\n\n## Notes\n\nDeploys take about two minutes; never on a Friday afternoon.\n"},
	}
	return edits, whole
}

// benchResult is one arm's figures.
type benchResult struct {
	arm           string
	rounds, runs  int  // evolve attempts and sessions until the fix was accepted (or in all)
	fixed         bool // the test step is in the accepted version in force
	refused       []string
	repeats       int // candidates written that carried an idea already rejected
	grade         string
	score         float64
	keptLines     int // lines of the original byte-identical in the final text
	origLines     int
	keptBytes     int
	origBytes     int
	untouchedKept bool // every original line no answer meant to change is kept
	candidates    int
}

// TestEvolveLearning runs the benchmark: both arms on the same script,
// side by side. It checks what the edit arm must show (the flaw fixed, no
// rejected idea back as a candidate, every untouched line byte-identical)
// and prints the figures.
func TestEvolveLearning(t *testing.T) {
	if os.Getenv("SEPAD_BENCH_EVOLVE") != "1" {
		t.Skip("the evolve benchmark runs with SEPAD_BENCH_EVOLVE=1 (scripts/bench-evolve.sh)")
	}
	var c client
	for _, cl := range clients(t) {
		if cl.Version == "2.1.328" {
			c = cl
		}
	}
	if c.Bin == "" {
		t.Skip("the evolve benchmark runs on Claude Code 2.1.328")
	}
	edits, whole := benchScript(t)
	var res []benchResult
	for _, arm := range []struct {
		name    string
		answers []benchAnswer
		budget  string
	}{{"edit lists", edits, ""}, {"whole text", whole, ""}, {"whole text, budget 1", whole, "  edit_budget: 1\n"}} {
		start := time.Now()
		r := runBenchArm(t, c, arm.name, arm.answers, arm.budget)
		t.Logf("%s: %v", arm.name, time.Since(start).Round(time.Second))
		res = append(res, r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| figure | %s | %s | %s |\n|---|---|---|---|\n", res[0].arm, res[1].arm, res[2].arm)
	row := func(name string, f func(r benchResult) string) {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, f(res[0]), f(res[1]), f(res[2]))
	}
	row("rounds (runs) until the flaw is fixed", func(r benchResult) string {
		if !r.fixed {
			return fmt.Sprintf("not fixed in %d (%d runs)", r.rounds, r.runs)
		}
		return fmt.Sprintf("%d (%d)", r.rounds, r.runs)
	})
	row("candidates written", func(r benchResult) string { return fmt.Sprint(r.candidates) })
	row("answers refused", func(r benchResult) string {
		if len(r.refused) == 0 {
			return "0"
		}
		return fmt.Sprintf("%d (%s)", len(r.refused), strings.Join(r.refused, ", "))
	})
	row("rejected idea back as a candidate", func(r benchResult) string { return fmt.Sprint(r.repeats) })
	row("final grade", func(r benchResult) string { return fmt.Sprintf("%s (%.1f)", r.grade, r.score) })
	row("original lines kept byte-identical", func(r benchResult) string {
		return fmt.Sprintf("%d of %d (%d of %d bytes)", r.keptLines, r.origLines, r.keptBytes, r.origBytes)
	})
	t.Logf("evolve benchmark (Claude Code %s, fake model server, scripted mutator):\n%s", c.Version, b.String())
	if out := os.Getenv("SEPAD_BENCH_OUT"); out != "" {
		os.WriteFile(out, []byte(b.String()), 0o644)
	}
	e := res[0]
	if !e.fixed || e.repeats != 0 || !e.untouchedKept {
		t.Errorf("the edit arm: fixed %v, %d rejected ideas back, untouched lines kept %v", e.fixed, e.repeats, e.untouchedKept)
	}
}

// runBenchArm runs one arm: five sessions of the flawed skill, then
// rounds of `sepad evolve` (the mutator answering from the script), each
// candidate run until the engine decides it.
func runBenchArm(t *testing.T, c client, name string, answers []benchAnswer, config string) benchResult {
	e := newEnv(t, c)
	skill := e.write(filepath.Join(".claude", "skills", "deploy", "SKILL.md"), benchSkill)
	e.write("Makefile", benchMakefile)
	dir := filepath.Join(e.Root, "mutator")
	for i, a := range answers {
		e.write(filepath.Join(dir, fmt.Sprint(i+1)), a.answer)
	}
	// The scripted mutator: the Nth call answers with file N.
	script := e.write(filepath.Join(dir, "mutator.sh"), "#!/bin/sh\ncd "+dir+"\nn=$(( $(cat count 2>/dev/null || echo 0) + 1 ))\necho $n > count\ncat > request.$n\n"+
		"[ -f $n ] || { echo \"the script has no answer $n\" >&2; exit 1; }\ncat $n\n")
	e.write(filepath.Join(e.Home, ".config", "sepa", "config.yaml"), "mutation:\n  method: sepa\n  min_samples: 5\n  debounce: 100ms\n  cooldown_executions: 0\n  mutator: [sh, "+script+"]\n"+config)
	d := e.startDaemon("--http", freeAddr(t))
	defer d.stop()
	n := 0
	session := func() {
		n++
		text, err := os.ReadFile(skill)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(e.Project, ".tested"))
		key := fmt.Sprintf("benchrun%d", n)
		e.API.Set(key, benchSession(string(text)))
		e.claude("-p", "deploy the app @@"+key+"@@")
		if xs := d.waitExecutions(n); len(xs) != n {
			t.Fatalf("%s: %d executions stored after %d sessions", name, len(xs), n)
		}
	}
	for i := 0; i < 5; i++ {
		session()
	}
	r := benchResult{arm: name}
	rejected := map[string]bool{}
	calls := func() int {
		b, _ := os.ReadFile(filepath.Join(dir, "count"))
		var k int
		fmt.Sscan(strings.TrimSpace(string(b)), &k)
		return k
	}
	for round := 1; round <= len(answers); round++ {
		r.rounds = round
		out, errOut, code := e.sepad("evolve", "deploy", "--json")
		var a evolve.Attempt
		if err := json.Unmarshal([]byte(out), &a); err != nil || calls() != round {
			t.Fatalf("%s round %d: exit %d, %d mutator calls\n%s%s\ndaemon:\n%s", name, round, code, calls(), out, errOut, d.log.String())
		}
		idea := answers[round-1].idea
		if !a.Applied {
			r.refused = append(r.refused, a.Rule)
			continue
		}
		r.candidates++
		if rejected[idea] {
			r.repeats++
		}
		var verdict string
		for k := 0; k < 12 && verdict == ""; k++ {
			time.Sleep(300 * time.Millisecond) // the watcher's debounce: the candidate is the version in force
			session()
			r.runs++
			verdict = benchVerdict(t, e, a.To)
		}
		t.Logf("%s round %d (%s): v%d %s after %d runs in all", name, round, idea, a.ToSeq, verdict, r.runs)
		switch verdict {
		case "accepted":
			if b, _ := os.ReadFile(skill); strings.Contains(string(b), "make test") {
				r.fixed = true
			}
		case "":
			t.Fatalf("%s: v%d undecided after 12 runs\ndaemon:\n%s", name, a.ToSeq, d.log.String())
		default:
			rejected[idea] = true
			// Rolled back to the version it was made from (the flawed
			// original: the script's only accepted idea is the fix).
			waitFile(t, skill, func(s string) bool { return s == benchSkill })
		}
		if r.fixed {
			break
		}
	}
	final, _ := os.ReadFile(skill)
	lines := map[string]bool{}
	for _, l := range strings.Split(string(final), "\n") {
		lines[l] = true
	}
	r.untouchedKept = true
	for _, l := range strings.Split(strings.TrimSuffix(benchSkill, "\n"), "\n") {
		if l == "" {
			continue
		}
		r.origLines++
		r.origBytes += len(l) + 1
		if lines[l] {
			r.keptLines++
			r.keptBytes += len(l) + 1
		} else if !strings.Contains(l, "make build") && !strings.Contains(l, "make deploy") {
			r.untouchedKept = false // no idea of the script is about this line
		}
	}
	out, _, _ := e.sepad("grades", "--json")
	var g struct {
		Grades []struct {
			Skill     string   `json:"skill"`
			Current   bool     `json:"current"`
			Grade     string   `json:"grade"`
			Aggregate *float64 `json:"aggregate"`
		} `json:"grades"`
	}
	json.Unmarshal([]byte(out), &g)
	for _, row := range g.Grades {
		if row.Skill == "deploy" && row.Current && row.Aggregate != nil {
			r.grade, r.score = row.Grade, *row.Aggregate
		}
	}
	return r
}

// benchVerdict reads the decision log: "accepted" or "rejected" once the
// engine decided the candidate (a rollback is a rejection), "" before.
func benchVerdict(t *testing.T, e *env, cand string) string {
	for i := 0; i < 20; i++ {
		out, _, _ := e.sepad("decisions", "deploy", "--json", "--limit", "1000")
		var doc struct {
			Decisions []struct {
				Payload struct {
					Kind     string `json:"kind"`
					Rule     string `json:"rule"`
					From     string `json:"from"`
					To       string `json:"to"`
					Decision *struct {
						Outcome string `json:"outcome"`
					} `json:"decision"`
				} `json:"payload"`
			} `json:"decisions"`
		}
		json.Unmarshal([]byte(out), &doc)
		for _, d := range doc.Decisions {
			p := d.Payload
			switch {
			case p.Kind == "decision" && p.To == cand && p.Decision != nil && p.Decision.Outcome == "accept":
				return "accepted"
			case p.Kind == "decision" && p.To == cand && p.Decision != nil && p.Decision.Outcome == "reject",
				p.Kind == "rollback" && p.From == cand:
				return "rejected (" + p.Rule + ")"
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return ""
}

// waitFile waits until the file's text satisfies ok.
func waitFile(t *testing.T, path string, ok func(string) bool) {
	t.Helper()
	for i := 0; i < 100; i++ {
		if b, err := os.ReadFile(path); err == nil && ok(string(b)) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b, _ := os.ReadFile(path)
	t.Fatalf("%s never changed as expected:\n%s", path, b)
}
