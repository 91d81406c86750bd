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

	"github.com/sepad/sepad/evolve"
)

// startDaemonWith starts `sepad run` with the project's environment and
// more (the mutator's).
func startDaemonWith(t *testing.T, p *project, extra []string) *daemon {
	t.Helper()
	cmd := exec.Command(sepadBin, "run", "--home", p.home, "--log-level", "info")
	cmd.Env = append(append(os.Environ(), p.env()...), extra...)
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
	p := newProject(t)
	script := mutatorScript(t, t.TempDir())
	p.config("  mutator: [" + script + "]\n  evolve_below: B\n")
	p.writeSkill("Run the checks, then make deploy.\n\n## Rollback\n\nUse make rollback.")
	startDaemonEnv(t, p)
	for i := 0; i < 5; i++ {
		p.turn(2, badAnswer)
	}
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
		if code != 1 || !strings.Contains(errOut, "refused by too_soon: 0 executions since the last change (need 3, 3 more)") {
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
		if i == 2 && (code != 1 || !strings.Contains(errOut, "refused by high_risk_limit: 2 high-risk mutations of this skill in the last 24 hours (limit 2)")) {
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
