package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sepad/sepad/validity"
)

// TestValidityOnDemoState runs `sepad validity` on the state `sepad demo
// --keep` leaves: first with no verdict at all, then after a person's
// labels that follow the story (deploy v2, which skips the checks, and
// review v2, graded F, failed; the other versions succeeded).
func TestValidityOnDemoState(t *testing.T) {
	skipLong(t)
	tmp := t.TempDir()
	env := []string{"HOME=" + t.TempDir(), "TMPDIR=" + tmp, "SEPA_CONFIG=", "XDG_CONFIG_HOME=" + tmp}
	out, errOut, code := sepad(t, env, nil, "demo", "--keep")
	if code != 0 {
		t.Fatalf("demo exit %d: %s", code, errOut)
	}
	i := strings.Index(out, " grades --home ")
	if i < 0 {
		t.Fatalf("no --home hint:\n%s", out)
	}
	home := strings.Fields(out[i+len(" grades --home "):])[0]

	out, errOut, code = sepad(t, env, nil, "validity", "--home", home)
	if code != 0 || !strings.HasPrefix(out, "No verdicts on any skill's executions yet") {
		t.Fatalf("validity with no labels: exit %d %q %s", code, out, errOut)
	}

	out, errOut, code = sepad(t, env, nil, "executions", "--json", "--limit", "1000", "--home", home)
	if code != 0 {
		t.Fatalf("executions: %d %s", code, errOut)
	}
	var doc struct {
		Executions []struct {
			ID      string `json:"id"`
			Skill   string `json:"skill"`
			Version int    `json:"version"`
		} `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("executions --json: %v\n%s", err, out)
	}
	// Six labels per version: 24 deploy and review runs.
	per := map[string]int{}
	labelled := map[string]int{}
	for _, x := range doc.Executions {
		k := x.Skill + "@" + string(rune('0'+x.Version))
		if x.Skill == "_session" || per[k] == 6 {
			continue
		}
		per[k]++
		verdict := "success"
		if x.Version == 2 {
			verdict = "failure"
		}
		if _, e, c := sepad(t, env, nil, "label", x.ID, verdict, "--rater", "ana", "--home", home); c != 0 {
			t.Fatalf("label %s %s: exit %d %s", x.ID, verdict, c, e)
		}
		labelled[verdict]++
	}
	if labelled["success"] != 18 || labelled["failure"] != 12 {
		t.Fatalf("labelled %v (per version %v)", labelled, per)
	}

	out, errOut, code = sepad(t, env, nil, "validity", "--json", "--home", home)
	if code != 0 {
		t.Fatalf("validity --json: %d %s", code, errOut)
	}
	var rep validity.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("validity --json: %v\n%s", err, out)
	}
	if len(rep.Groups) != 1 || rep.Groups[0].Rubric != rep.Current || rep.Groups[0].N != 30 || rep.Groups[0].Sources["label"] != 30 {
		t.Fatalf("groups: %s", out)
	}
	rows := map[string]validity.Row{}
	for _, r := range rep.Groups[0].Rows {
		rows[r.Signal] = r
		if r.Verdict == "" {
			t.Errorf("row %s has no verdict", r.Signal)
		}
	}
	for _, s := range []string{"tool_success_rate", "output_quality", "efficiency", "error_rate", "structure_score", "total"} {
		if r, ok := rows[s]; !ok || r.N != 30 || r.Successes != 18 || r.Failures != 12 || r.AUC == nil {
			t.Errorf("row %s: %+v", s, r)
		}
	}
	if _, ok := rows["label"]; ok {
		t.Errorf("the label is measured against itself: %s", out)
	}
	// deploy v2 never verifies and claims every check passed, review v2
	// fails every call: the score ranks the labels' successes above, and
	// the outcome tells deploy v2 apart.
	if a := *rows["total"].AUC; a < 0.8 {
		t.Errorf("total AUC %.2f on the demo's story", a)
	}
	if r, ok := rows["outcome"]; !ok || r.AUC == nil || *r.AUC < 0.8 {
		t.Errorf("outcome: %+v", r)
	}

	out, _, code = sepad(t, env, nil, "validity", "deploy", "--home", home)
	if code != 0 || !strings.Contains(out, "Rubric "+rep.Current+" (current), deploy: 18 executions with a verdict (18 label)") || !strings.Contains(out, "AUC: the chance") {
		t.Fatalf("validity deploy: %d\n%s", code, out)
	}
	t.Logf("sepad validity on the demo state:\n%s", out)
	if _, e, c := sepad(t, env, nil, "validity", "nosuchskill", "--home", home); c == 0 || !strings.Contains(e, "nosuchskill") {
		t.Errorf("validity of an unknown skill: exit %d %q", c, e)
	}
}
