package mutation

import (
	"encoding/json"
	"slices"
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
		"; worse than v6 with 95% confidence; ",
		"tool success rate −0.21 = −7.3 pts, efficiency −0.05 = −1.0 pt"} {
		if !strings.Contains(d.Explanation, w) {
			t.Errorf("explanation %q lacks %q", d.Explanation, w)
		}
	}
	// The statistics stay in the record's rule, out of the words a person
	// reads by default (issue 36 item 6).
	for _, w := range []string{"its z −", "reached the reject line −", "information"} {
		if !strings.Contains(d.Rule, w) {
			t.Errorf("rule %q lacks %q", d.Rule, w)
		}
		if strings.Contains(d.Explanation, w) {
			t.Errorf("explanation %q has %q", d.Explanation, w)
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

// TestOptionalSignalAbsentLeftOut (issue 36 item 3): a version never
// labelled is not charged its baseline's label as a zero.
func TestOptionalSignalAbsentLeftOut(t *testing.T) {
	base := []SignalMean{{Signal: "tool_success_rate", Present: 40, SubScore: 0.9, Points: 30},
		{Signal: "label", Present: 1, SubScore: 1, Points: 3.3}}
	cand := []SignalMean{{Signal: "tool_success_rate", Present: 10, SubScore: 0.9, Points: 30},
		{Signal: "label", Present: 0}}
	for _, d := range signalDiffs(base, cand) {
		if d.Signal == "label" {
			t.Fatalf("a label only the baseline has is compared: %+v", d)
		}
	}
	// Both labelled: compared.
	cand[1] = SignalMean{Signal: "label", Present: 2, SubScore: 0.5, Points: 1.5}
	if !slices.ContainsFunc(signalDiffs(base, cand), func(d SignalDiff) bool { return d.Signal == "label" && d.Delta == -0.5 }) {
		t.Fatalf("a label both have is left out: %+v", signalDiffs(base, cand))
	}
	d := Decide(skillKey, "b", "c", Sample{Seq: 1, Scores: scores(40, 80, 4), Signals: base},
		Sample{Seq: 2, Scores: scores(18, 70, 4), Signals: []SignalMean{{Signal: "tool_success_rate", Present: 18, SubScore: 0.8, Points: 27}}}, DefaultOptions())
	if strings.Contains(d.Explanation, "label") {
		t.Errorf("explanation %q charges the missing label", d.Explanation)
	}
}

// TestAbsurdIntervalNotPrinted (issue 36 item 2): an interval wider than
// the 0-100 scale is not printed; the words say the runs are too few.
func TestAbsurdIntervalNotPrinted(t *testing.T) {
	d := Decision{Outcome: Undecided, Reason: ReasonUndecided, CandidateMean: 60, BaselineMean: 94.3, Delta: -4.4,
		Interval: [2]float64{-6229.6, 189}, CandidateN: 5, BaselineN: 2, Candidate: Sample{Seq: 2}, Baseline: Sample{Seq: 1}}
	e := explain(&d, DefaultOptions())
	if strings.Contains(e, "6229") || strings.Contains(e, "interval") || !strings.Contains(e, "not enough runs to compare yet (5 and 2)") {
		t.Errorf("explanation %q", e)
	}
}
