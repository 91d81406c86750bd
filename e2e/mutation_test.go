package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/store"
)

// project is a temporary Claude Code project with one skill, driven through
// the real hook binary as Claude Code would.
type project struct {
	t        *testing.T
	home     string // SEPA_HOME
	userHome string // HOME
	dir      string
	skill    string
	session  string
	n        int
	// hookCmd is the command `sepad install` wrote into the project's
	// settings: the tests run exactly that, as Claude Code would.
	hookCmd []string
	// askEdits leaves mutation.rollback_edits at ask (the default).
	askEdits bool
}

func newProject(t *testing.T) *project {
	root := t.TempDir()
	p := &project{t: t, home: filepath.Join(root, "state"), userHome: filepath.Join(root, "user"), dir: filepath.Join(root, "shop"), session: "e2e00000-0000-4000-8000-000000000001"}
	os.MkdirAll(filepath.Join(p.dir, ".git"), 0o755)
	os.MkdirAll(p.userHome, 0o755)
	p.skill = filepath.Join(p.dir, ".claude", "skills", "deploy", "SKILL.md")
	if _, errOut, code := sepad(t, p.env(), nil, "install", "--project", p.dir); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string
				Args    []string
			} `json:"hooks"`
		} `json:"hooks"`
	}
	b, _ := os.ReadFile(filepath.Join(p.dir, ".claude", "settings.json"))
	if err := json.Unmarshal(b, &settings); err != nil || len(settings.Hooks["PostToolUse"]) == 0 {
		t.Fatalf("settings after install: %v %s", err, b)
	}
	// Exec form: Claude Code runs "command" with "args", no shell.
	h := settings.Hooks["PostToolUse"][0].Hooks[0]
	if h.Args == nil {
		t.Fatalf("install wrote a shell-form hook: %s", b)
	}
	p.hookCmd = append([]string{h.Command}, h.Args...)
	return p
}

func (p *project) env() []string {
	return []string{"SEPA_HOME=" + p.home, "HOME=" + p.userHome, "XDG_CONFIG_HOME=" + filepath.Join(p.userHome, ".config"), "SEPA_CONFIG=" + filepath.Join(p.home, "config.yaml")}
}

func (p *project) config(extra string) {
	writeFile(p.t, filepath.Join(p.home, "config.yaml"), "mutation:\n  method: sepa\n  min_samples: 5\n  debounce: 100ms\n  cooldown_executions: 0\n  rollback_edits: "+p.edits()+"\n"+extra)
}

// edits is mutation.rollback_edits for the tests' config: the tests edit
// the skill file by hand to make versions, so they roll edits back like
// a mutator's, except where a test asks for the default (ask).
func (p *project) edits() string {
	if p.askEdits {
		return "ask"
	}
	return "auto"
}

func (p *project) writeSkill(body string) {
	writeFile(p.t, p.skill, "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\n"+body+"\n")
	os.Chmod(p.skill, 0o640)
}

// hook sends one payload through `sepad hook`, as Claude Code does.
func (p *project) hook(ev map[string]any) {
	ev["session_id"] = p.session
	ev["cwd"] = p.dir
	ev["transcript_path"] = filepath.Join(p.userHome, ".claude", "projects", "x", p.session+".jsonl")
	b, _ := json.Marshal(ev)
	cmd := exec.Command(p.hookCmd[0], p.hookCmd[1:]...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), p.env()...)
	cmd.Stdin = bytes.NewReader(b)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil || out.Len() > 0 {
		p.t.Errorf("hook: %v, stdout %q", err, out.String())
	}
}

// turnCommands are the four Bash commands of a turn: two steps, the
// deploy and the tests, so goodAnswer ("Deployed", "all checks passed")
// claims what the run shows (rubric 4.0.0's outcome signal caps an
// answer whose claims nothing observed bears out). Failures hit them in
// this order: a turn with three failures failed its deploy, with four
// its tests too.
var turnCommands = [4]string{"make step0", "make step1", "make deploy", "make test"}

// turn runs one user turn that invokes the skill and makes four parallel
// tool calls (their hooks run concurrently, as Claude Code runs them),
// failed of which fail.
func (p *project) turn(failed int, answer string) {
	p.hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "ship the release"})
	p.n++
	id := fmt.Sprintf("toolu_%04d", p.n)
	in := map[string]any{"skill": "deploy"}
	p.hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": in, "tool_use_id": id})
	p.hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_input": in, "tool_use_id": id, "tool_response": map[string]any{"success": true, "commandName": "deploy"}, "duration_ms": 2})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		p.n++
		id := fmt.Sprintf("toolu_%04d", p.n)
		in := map[string]any{"command": turnCommands[i]}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			p.hook(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": in, "tool_use_id": id})
			if i < failed {
				p.hook(map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": in, "tool_use_id": id, "error": "Exit code 2\nmake: *** failed", "duration_ms": 900})
			} else {
				p.hook(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": in, "tool_use_id": id, "tool_response": map[string]any{"stdout": "ok", "stderr": ""}, "duration_ms": 900})
			}
		}(i)
	}
	wg.Wait()
	p.hook(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": answer})
}

// turns runs n turns, each with failed failures and answer as its
// final answer.
func (p *project) turns(n, failed int, answer string) {
	for i := 0; i < n; i++ {
		p.turn(failed, answer)
	}
}

// edit writes a new version of the skill between two series of turns,
// as a person would: once the daemon has read the previous turns and
// holds the file as it was (settled), and the next turn only once the
// daemon holds the new version. It returns the file as written.
func (p *project) edit(body string) []byte {
	p.t.Helper()
	p.settled("the turns before the edit read")
	p.writeSkill(body)
	b, err := os.ReadFile(p.skill)
	if err != nil {
		p.t.Fatal(err)
	}
	p.settled("the edit seen by the daemon's watcher")
	return b
}

// settled waits until the daemon has committed every line written to the
// spool so far (lag 0) and holds the skill file as it is now as a version
// in force: its watcher saw the last edit (after its debounce) or its own
// rollback, and no turn of the last version is left unread. Fixed sleeps
// against the debounce used to stand for this state, and a loaded machine
// broke them.
func (p *project) settled(what string) {
	p.t.Helper()
	waitFor(p.t, what, func() bool {
		b, err := os.ReadFile(p.skill)
		if err != nil || status(p.t, p.home).LagEvents != 0 {
			return false
		}
		for _, v := range versionsOf(p.t, p) {
			if v.Current && v.Hash == promptfile.Hash(b) {
				return true
			}
		}
		return false
	})
}

// decided waits until the daemon recorded a decision of kind (and rule,
// unless "") about the skill: a decision record is the state a fixed
// sleep after the deciding run used to wait for.
func (p *project) decided(what, kind, rule string) {
	p.t.Helper()
	waitDecision(p.t, p, what, func(r map[string]any) bool {
		return r["kind"] == kind && (rule == "" || r["rule"] == rule)
	})
}

// release sends a neutral prompt: the previous turn's last execution is
// held until the next prompt (a correction would count against it).
func (p *project) release() {
	p.hook(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "thanks, what is next on the list?"})
}

const goodAnswer = "## Deployed\n\nThe release is live because all checks passed.\n\n- built\n- pushed\n\n```sh\nmake deploy\n```\n\nNext steps: watch the dashboards."
const badAnswer = "Error: the deploy failed.\nI was unable to finish the release."

// waitDeadline bounds every waitFor: generous, so that a loaded machine
// only makes a test slower, never wrong.
const waitDeadline = 90 * time.Second

// waitFor polls cond every 100 ms until it holds, failing the test after
// waitDeadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(waitDeadline); ; time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", waitDeadline, what)
		}
	}
}

func fileIs(path, want string) func() bool {
	return func() bool {
		b, err := os.ReadFile(path)
		return err == nil && string(b) == want
	}
}

func decisions(t *testing.T, home string) []mutation.Record {
	t.Helper()
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{ReadOnly: true, LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ds, err := db.Decisions("", 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []mutation.Record
	for i := len(ds) - 1; i >= 0; i-- { // oldest first
		var r mutation.Record
		json.Unmarshal(ds[i].Payload, &r)
		out = append(out, r)
	}
	return out
}

func TestMutationLoop(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("")
	v1 := "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\nRun the checks, then make deploy.\n"
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)

	// v1: decent. Five executions make it the baseline.
	p.turns(5, 1, goodAnswer)
	p.release()

	// v2: worse (more failures, a poor answer): rejected, file restored.
	p.edit("Deploy quickly; skip the checks.")
	p.turns(5, 2, "Deployed without checks.")
	p.release()
	waitFor(t, "v2 rejected and v1 restored byte for byte", fileIs(p.skill, v1))
	fi, _ := os.Stat(p.skill)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v after rollback, want 0640 kept", fi.Mode().Perm())
	}

	// v3: better: accepted.
	v3 := p.edit("Run the checks in parallel, deploy, then verify.")
	p.turns(5, 0, goodAnswer)
	p.release()
	p.decided("v3 accepted", mutation.KindDecision, "significant_improvement")

	// v4: graded F: rolled back to the best version, v3.
	p.edit("Just try random commands.")
	p.turns(5, 4, badAnswer) // a safety rollback needs min_samples runs
	p.release()
	waitFor(t, "F-grade v4 rolled back to v3", fileIs(p.skill, string(v3)))

	// v5: measured as bad, but a human edits the file before the decision:
	// the edit is left alone (conflict).
	p.edit("Deploy only on Fridays.")
	p.turns(5, 1, "Deployed, probably.")
	human := "---\nname: deploy\n---\n# Deploy\n\nA human rewrote this.\n"
	writeFile(t, p.skill, human)
	p.settled("the human edit seen by the watcher")
	p.release() // releases v5's fifth execution: the decision comes now
	p.decided("v5's decision met the human edit", mutation.KindConflict, "")
	d.stop(t)
	if b, _ := os.ReadFile(p.skill); string(b) != human {
		t.Fatalf("human edit clobbered: %q", b)
	}

	// The grades show each version's status as the engine decided it.
	out, errOut, code := sepad(t, p.env(), nil, "grades", "deploy", "--all-versions", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("grades: %d %s", code, errOut)
	}
	for _, w := range []string{`"rejected"`, `"rolled back"`, `"baseline"`} {
		contains(t, out, w)
	}
	recs := decisions(t, p.home)
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s/%s applied=%v", r.Kind, r.Rule, r.Applied))
	}
	t.Logf("decisions: %v", got)
	want := []string{"decision/regression applied=true", "decision/significant_improvement applied=true", "rollback/grade_f applied=true", "conflict/"}
	joined := strings.Join(got, " | ")
	last := -1
	for _, w := range want {
		i := strings.Index(joined, w)
		if i < 0 || i < last {
			t.Fatalf("decisions %q lack %q in order", joined, w)
		}
		last = i
	}

	// Replaying the same spool into a fresh store reproduces every
	// decision's outcome (auto_rollback off: the replay writes no file).
	replay := t.TempDir()
	spool, err := os.ReadFile(filepath.Join(p.home, "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(replay, "events.jsonl"), string(spool))
	writeFile(t, filepath.Join(replay, "config.yaml"), "mutation:\n  method: sepa\n  min_samples: 5\n  auto_rollback: false\n  cooldown_executions: 0\n")
	rp := *p
	rp.home = replay
	before, _ := os.ReadFile(p.skill)
	d2 := startDaemonEnv(t, &rp)
	waitFor(t, "the replay read and decided as often as the original", func() bool {
		if status(t, rp.home).LagEvents != 0 {
			return false
		}
		out, _, code := sepad(t, rp.env(), nil, "decisions", "deploy", "--home", rp.home, "--json", "--limit", "1000")
		var doc struct{ Decisions []json.RawMessage }
		return code == 0 && json.Unmarshal([]byte(out), &doc) == nil && len(doc.Decisions) >= len(recs)
	})
	d2.stop(t)
	if after, _ := os.ReadFile(p.skill); !bytes.Equal(before, after) {
		t.Fatal("replay with auto_rollback off changed the file")
	}
	var orig, again []string
	for _, r := range recs {
		orig = append(orig, r.Rule)
	}
	for _, r := range decisions(t, replay) {
		again = append(again, r.Rule)
		if r.Kind != mutation.KindDecision || r.Decision.Outcome != decide.Accept {
			if r.Applied {
				t.Errorf("replay applied %s/%s with auto_rollback off", r.Kind, r.Rule)
			}
		}
	}
	if fmt.Sprint(orig) != fmt.Sprint(again) {
		t.Fatalf("replay decisions %v, original %v", again, orig)
	}
}

// startDaemonEnv starts `sepad run` with the project's environment.
func startDaemonEnv(t *testing.T, p *project) *daemon {
	t.Helper()
	return startDaemonWith(t, p, nil)
}

func TestAutoRollbackOffChangesNothing(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("  auto_rollback: false\n")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	p.turns(5, 0, goodAnswer)
	p.release()
	bad := p.edit("Just try random commands.")
	p.turns(5, 4, badAnswer) // a safety rollback needs min_samples runs
	p.release()
	waitDecision(t, p, "the would-roll-back record", func(r map[string]any) bool {
		w, _ := r["words"].(string)
		return strings.Contains(w, "would roll back")
	})
	d.stop(t)
	if b, _ := os.ReadFile(p.skill); !bytes.Equal(b, bad) {
		t.Fatal("auto_rollback off, yet the file changed")
	}
	recs := decisions(t, p.home)
	if len(recs) == 0 {
		t.Fatal("no decision recorded")
	}
	for _, r := range recs {
		if r.Applied || !strings.Contains(r.Words, "would roll back") {
			t.Errorf("record %+v: want a would-roll-back record, not applied", r)
		}
	}
	// The grades say so too: the version is not shown as rolled back.
	out, errOut, code := sepad(t, p.env(), nil, "grades", "deploy", "--all-versions", "--home", p.home, "--json")
	if code != 0 || !strings.Contains(out, `"would roll back"`) || strings.Contains(out, `"rolled back"`) {
		t.Fatalf("grades with auto_rollback off: exit %d %s\n%s", code, errOut, out)
	}
}
