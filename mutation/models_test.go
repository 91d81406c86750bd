package mutation

import (
	"strings"
	"testing"
)

// TestModelSwitchIsNotDecided (issue 37 item 3): v1 ran on sonnet, v2 on
// opus and scores 20 points more; the engine neither accepts v2 nor rolls
// it back: the pending decision says the models differ. Runs of v1 on
// opus later make the comparison, on opus alone.
func TestModelSwitchIsNotDecided(t *testing.T) {
	r := newEngineRig(t, trustOptions())
	v1 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n")
	for i := 0; i < 8; i++ {
		r.runOn(v1, 70+float64(i%2), "claude-sonnet-4-5")
	}
	v2 := r.write("---\nname: deploy\n---\n# Deploy\n\nRun the checks twice, then deploy.\n")
	for i := 0; i < 12; i++ {
		r.runOn(v2, 90+float64(i%2), "claude-opus-4-5")
	}
	st := r.state()
	if st.Baseline != v1 || st.Candidate != v2 || st.Pending == nil || len(r.records()) != 0 {
		t.Fatalf("v2 decided on a model switch: %+v, records %+v", st, r.records())
	}
	if w := st.Pending.Explanation; !strings.HasPrefix(w, "v2 ran on claude-opus-4-5, v1 on claude-sonnet-4-5: not compared yet") {
		t.Fatalf("pending words %q", w)
	}
	// v2 on sonnet scores like v1 on sonnet: still no difference to act on,
	// and the decision names both models.
	for i := 0; i < 4; i++ {
		r.runOn(v2, 70+float64(i%2), "claude-sonnet-4-5")
	}
	st = r.state()
	if st.Status[v2] == StatusAccepted || len(r.records()) != 0 {
		t.Fatalf("v2 accepted on the opus runs: %+v", r.records())
	}
	if w := st.Pending.Explanation; !strings.Contains(w, "compared model by model: claude-sonnet-4-5 4 and 8 runs; left out, no runs of both on it: claude-opus-4-5 (12 runs of the candidate)") {
		t.Fatalf("pending words %q", w)
	}
}

// TestSafetyComparesSameModel: the safety rules that compare scores do
// not roll a version back to one that only ran on another model.
func TestSafetyComparesSameModel(t *testing.T) {
	o := DefaultSafetyOptions()
	o.MinSamples = 5
	parent := VersionStat{Hash: "p", Seq: 1, N: 10, Graded: true, Aggregate: 80, Models: []string{"opus"}}
	cur := VersionStat{Hash: "c", Seq: 2, Parent: "p", N: 10, Graded: true, Aggregate: 40, Models: []string{"haiku"}}
	if r, ok := CheckSafety(cur, []VersionStat{parent, cur}, o); ok {
		t.Fatalf("rolled back across models: %+v", r)
	}
	// A model in common: the rules apply.
	cur.Models = []string{"haiku", "opus"}
	if r, ok := CheckSafety(cur, []VersionStat{parent, cur}, o); !ok || r.Rule != RuleGradeF || r.Target != "p" {
		t.Fatalf("a model in common: %+v %v", r, ok)
	}
	// Models unknown on one side: as before.
	cur.Models = nil
	if _, ok := CheckSafety(cur, []VersionStat{parent, cur}, o); !ok {
		t.Fatal("no models: not rolled back")
	}
}
