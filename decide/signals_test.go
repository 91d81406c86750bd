package decide

import (
	"slices"
	"testing"
)

// TestOptionalSignalAbsentLeftOut (issue 36 item 3): a version never
// labelled is not charged its baseline's label as a zero.
func TestOptionalSignalAbsentLeftOut(t *testing.T) {
	base := []SignalMean{{Signal: "tool_success_rate", Present: 40, SubScore: 0.9, Points: 30},
		{Signal: "label", Present: 1, SubScore: 1, Points: 3.3, Optional: true}}
	cand := []SignalMean{{Signal: "tool_success_rate", Present: 10, SubScore: 0.9, Points: 30},
		{Signal: "label", Present: 0, Optional: true}}
	for _, d := range SignalDiffs(base, cand) {
		if d.Signal == "label" {
			t.Fatalf("a label only the baseline has is compared: %+v", d)
		}
	}
	// The candidate's means lack the row altogether: still left out.
	if slices.ContainsFunc(SignalDiffs(base, cand[:1]), func(d SignalDiff) bool { return d.Signal == "label" }) {
		t.Fatalf("a label only the baseline has is compared: %+v", SignalDiffs(base, cand[:1]))
	}
	// Both labelled: compared.
	cand[1] = SignalMean{Signal: "label", Present: 2, SubScore: 0.5, Points: 1.5, Optional: true}
	if !slices.ContainsFunc(SignalDiffs(base, cand), func(d SignalDiff) bool {
		return d.Signal == "label" && d.Delta == -0.5 && d.BaselineRuns == 1 && d.CandidateRuns == 2
	}) {
		t.Fatalf("a label both have is left out: %+v", SignalDiffs(base, cand))
	}
	// Only the candidate labelled: evidence worth no points.
	if !slices.ContainsFunc(SignalDiffs(base[:1], cand), func(d SignalDiff) bool {
		return d.Signal == "label" && d.Points == 0 && d.Baseline == 0 && d.CandidateRuns == 2
	}) {
		t.Fatalf("a label the candidate alone has is not shown: %+v", SignalDiffs(base[:1], cand))
	}
}
