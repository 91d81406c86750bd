package mutation

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDecisionExplained (issue 15 point 5): a decision says, in words and
// in JSON, the means, n, the difference with its interval in points, the
// rule with its threshold, and which signals made the difference.
func TestDecisionExplained(t *testing.T) {
	base := Sample{Seq: 6, Scores: scores(40, 78.9, 4), Signals: []SignalMean{
		{Signal: "tool_success_rate", Present: 40, SubScore: 0.95, Points: 33.25},
		{Signal: "efficiency", Present: 40, SubScore: 0.80, Points: 16.0},
		{Signal: "structure", Present: 40, SubScore: 0.5, Points: 5.0}}}
	cand := Sample{Seq: 7, Scores: scores(18, 71.2, 4), Signals: []SignalMean{
		{Signal: "tool_success_rate", Present: 18, SubScore: 0.74, Points: 25.9},
		{Signal: "efficiency", Present: 18, SubScore: 0.75, Points: 15.0},
		{Signal: "structure", Present: 18, SubScore: 0.5, Points: 5.0}}}
	d := Decide(skillKey, "b", "c", base, cand, DefaultOptions())
	if d.Outcome != Reject {
		t.Fatalf("outcome %s: %s", d.Outcome, d.Detail)
	}
	for _, w := range []string{"v7 rejected: 71.2 vs v6's 78.9 (−7.7, 95% interval −", " after 18 and 40 runs",
		"rule: reject a candidate worse with 95% confidence: its z −", "reached the reject line −",
		"tool_success_rate −0.21 = −7.3 pts, efficiency −0.05 = −1.0 pt"} {
		if !strings.Contains(d.Explanation, w) {
			t.Errorf("explanation %q lacks %q", d.Explanation, w)
		}
	}
	if d.Words != d.Explanation || d.Detail == "" || strings.Contains(d.Explanation, "z=") {
		t.Errorf("words %q, detail %q", d.Words, d.Detail)
	}
	b, _ := json.Marshal(d)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	for _, k := range []string{"baseline_mean", "candidate_mean", "baseline_n", "candidate_n", "interval", "rule", "signals", "explanation"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("decision JSON lacks %q: %s", k, b)
		}
	}
	if doc["candidate_n"] != 18.0 || doc["baseline_n"] != 40.0 {
		t.Errorf("n in JSON: %v %v", doc["candidate_n"], doc["baseline_n"])
	}

	// Undecided: the runs still needed, in words and JSON.
	d = Decide(skillKey, "b", "c", Sample{Seq: 1, Scores: scores(40, 70, 10)}, Sample{Seq: 2, Scores: scores(8, 73, 10)}, DefaultOptions())
	if d.Outcome != Undecided || d.NeededMore <= 0 || !strings.Contains(d.Explanation, "needs about ") || !strings.Contains(d.Explanation, "v2 undecided: ") {
		t.Fatalf("undecided: %+v", d)
	}
}
