package claudecode

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// Issue 37 item 3: a model change is not a prompt change. In one session
// the person runs the deploy skill's v1 with one model, edits the skill,
// switches the model (set_model, what /model and the SDK do), and runs v2;
// v2's runs go better. sepad records each run's model from the
// transcript, and the daemon does not credit v2 with the new model's
// work: v2 stays undecided ("v2 ran on …, v1 on …: not compared yet"),
// and grades and versions show each version's model.
func init() {
	scenarios = append(scenarios, modelSwitchScenario)
}

const (
	modelBefore = "claude-sonnet-test-1"
	modelAfter  = "claude-opus-test-1"
)

var modelSwitchScenario = scenario{
	name: "model_switch",
	run: func(e *env) {
		e.write(".claude/skills/deploy/SKILL.md", deploySkill)
		e.write(filepath.Join(e.State, "config.yaml"), "collector:\n  idle_timeout: 2s\nmutation:\n  min_samples: 2\n  debounce: 100ms\n")
		e.Env = append(e.Env, "SEPA_CONFIG="+filepath.Join(e.State, "config.yaml"))
		e.startDaemon()
		// One session: v1 three times on the first model (a failed check,
		// then the deploy), then the person edits the skill and switches
		// the model, as /model does (an SDK host sends set_model), and v2
		// runs three times, cleanly. The script is the session's: its
		// steps follow the conversation.
		var steps fakeclaude.Script
		for i := 0; i < 3; i++ {
			steps = append(steps, fakeclaude.Step{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				fakeclaude.Step{Tools: []fakeclaude.Tool{bash("exit 1")}},
				fakeclaude.Step{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				fakeclaude.Step{Text: answer})
		}
		for i := 0; i < 3; i++ {
			steps = append(steps, fakeclaude.Step{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				fakeclaude.Step{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				fakeclaude.Step{Text: answer})
		}
		e.API.Set("modelswitch", steps)
		s := e.startStreamArgs("--model", modelBefore)
		stops := 0
		turn := func(text string) {
			s.send(text)
			stops++
			e.waitCount(`"hook_event_name":"Stop"`, stops)
		}
		turn("deploy it @@modelswitch@@")
		turn("deploy it again")
		turn("and once more")
		e.write(".claude/skills/deploy/SKILL.md", strings.Replace(deploySkill, "2. Ship it.", "2. Ship it.\n3. Say what shipped.", 1))
		fmt.Fprintf(s.in, `{"type":"control_request","request_id":"switch-1","request":{"subtype":"set_model","model":%q}}`+"\n", modelAfter)
		turn("deploy the new version")
		turn("deploy it again")
		turn("and once more")
		s.end()
		var got []string
		for _, r := range e.API.Requests() {
			if r.Key == "modelswitch" && (len(got) == 0 || got[len(got)-1] != r.Model) {
				got = append(got, r.Model)
			}
		}
		if len(got) != 2 || got[0] != modelBefore || got[1] != modelAfter {
			e.t.Fatalf("the session asked for models %v, want %s then %s", got, modelBefore, modelAfter)
		}
		// The daemon read each run's model from its transcript and did
		// not decide on a model switch.
		var rows []modelRow
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
			rows = modelRows(e)
			if len(rows) == 2 && rows[1].N == 3 && rows[1].Pending != "" {
				break
			}
			if time.Now().After(deadline) {
				out, _, _ := e.sepad("versions", "deploy", "--json")
				e.t.Fatalf("v2 never pending with its 3 runs:\n%s", out)
			}
		}
		want := "v2 ran on " + modelAfter + ", v1 on " + modelBefore + ": not compared yet"
		if !strings.HasPrefix(rows[1].Pending, want) || rows[1].Status != "candidate" {
			e.t.Errorf("v2: %+v, want pending %q", rows[1], want)
		}
		for i, m := range []string{modelBefore, modelAfter} {
			if len(rows[i].Models) != 1 || rows[i].Models[0].Model != m || rows[i].Models[0].N != 3 {
				e.t.Errorf("v%d models %+v, want 3 runs of %s", i+1, rows[i].Models, m)
			}
		}
		out, _, _ := e.sepad("versions", "deploy")
		for _, w := range []string{"deploy v1 ran on " + modelBefore + "\n", "deploy v2 ran on " + modelAfter + "\n", "not compared yet"} {
			if !strings.Contains(out, w) {
				e.t.Errorf("sepad versions lacks %q:\n%s", w, out)
			}
		}
		if out, _, _ := e.sepad("decisions"); !strings.Contains(out, "no decisions yet") {
			e.t.Errorf("a decision was made on a model switch:\n%s", out)
		}
	},
	check: func(t *testing.T, v string, xs []scored) {
		// The hook names a version by its content's hash.
		h := sha256.Sum256([]byte(deploySkill))
		v1 := hex.EncodeToString(h[:])[:12]
		var old, cur []scored
		for _, x := range bySkill(xs, "deploy") {
			if x.SkillVersion == v1 {
				old = append(old, x)
			} else {
				cur = append(cur, x)
			}
		}
		if len(old) != 3 || len(cur) != 3 || cur[0].SkillVersion != cur[1].SkillVersion || cur[1].SkillVersion != cur[2].SkillVersion {
			t.Fatalf("want 3 runs of each of two versions of deploy (v1 %s):\n%s", v1, dump(xs))
		}
		// v2 did better: what a model-blind comparison would credit to it.
		for _, x := range old {
			if x.ToolFailures != 1 {
				t.Errorf("v1 run %+v, want one failed call", x)
			}
		}
		for _, x := range cur {
			if x.ToolFailures != 0 || x.Score <= old[0].Score {
				t.Errorf("v2 run %+v, want no failure and a higher score", x)
			}
		}
	},
}

type modelRow struct {
	Version int    `json:"version"`
	Status  string `json:"status"`
	N       int    `json:"n"`
	Pending string `json:"pending"`
	Models  []struct {
		Model string `json:"model"`
		N     int    `json:"n"`
	} `json:"models"`
}

// modelRows is `sepad versions deploy --json`'s rows, oldest first.
func modelRows(e *env) []modelRow {
	out, _, code := e.sepad("versions", "deploy", "--json")
	var doc struct {
		Versions []modelRow `json:"versions"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		return nil
	}
	sort.Slice(doc.Versions, func(i, j int) bool { return doc.Versions[i].Version < doc.Versions[j].Version })
	return doc.Versions
}
