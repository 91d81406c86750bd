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
