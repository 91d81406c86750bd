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

// TestSignalPointsFollowTheSignal: a signal that went up is worth points
// up, whatever the optional signals did to its weight. The demo printed
// "efficiency +0.01 = −1.3 pts": the candidate's runs all had an outcome
// verdict, which lowered efficiency's weight, and the difference of mean
// contributions charged that to efficiency.
func TestSignalPointsFollowTheSignal(t *testing.T) {
	base := []SignalMean{{Signal: "efficiency", Present: 40, SubScore: 0.80, Points: 0.80 * 16, Weight: 0.16}}
	cand := []SignalMean{{Signal: "efficiency", Present: 8, SubScore: 0.81, Points: 0.81 * 10, Weight: 0.10}}
	d := SignalDiffs(base, cand)
	if len(d) != 1 || d[0].Delta != 0.01 || d[0].Points != 0.13 {
		t.Fatalf("diffs %+v, want efficiency +0.01 = +0.13 points (0.01 at the mean weight 0.13)", d)
	}
	base[0].SubScore, base[0].Points = 0.9, 0.9*16
	if d := SignalDiffs(base, cand); d[0].Points >= 0 || d[0].Delta >= 0 {
		t.Fatalf("a signal down: %+v", d)
	}
}
