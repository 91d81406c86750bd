package reward

import (
	"errors"
	"math"
	"reflect"
	"testing"
	"time"
)

func f(v float64) *float64 { return &v }

// TestDerive is the label table: every evaluation label boundary,
// the signed score, the grader kind and every blocker.
func TestDerive(t *testing.T) {
	full := func(outcome string, score float64) Label {
		return Label{Outcome: outcome, Score: score, Rater: "ana", RubricVersion: "r1"}
	}
	for _, tc := range []struct {
		name      string
		l         Label
		signed    float64
		grader    string
		label     string
		sft, pref []string
	}{
		{"gold at 0.85", full(Success, 0.85), 0.85, GraderHuman, Gold, nil, nil},
		{"silver just below gold", full(Success, 0.8499), 0.8499, GraderHuman, Silver, nil, nil},
		{"silver at 0.65", full(Success, 0.65), 0.65, GraderHuman, Silver, nil, []string{BlockPrefScore}},
		{"bronze just below silver", full(Success, 0.6499), 0.6499, GraderHuman, Bronze, []string{BlockSFTScore}, []string{BlockPrefScore}},
		{"preference at 0.7", full(Success, 0.7), 0.7, GraderHuman, Silver, nil, nil},
		{"preference just below 0.7", full(Success, 0.6999), 0.6999, GraderHuman, Silver, nil, []string{BlockPrefScore}},
		{"success 1", full(Success, 1), 1, GraderHuman, Gold, nil, nil},
		{"bronze 0", full(Success, 0), 0, GraderHuman, Bronze, []string{BlockSFTScore}, []string{BlockPrefScore}},
		{"failure is rejected", full(Failure, 0), 0, GraderHuman, Rejected, []string{BlockNotSuccess, BlockSFTScore}, []string{BlockPrefScore}},
		{"failure with a high score", full(Failure, 0.9), -0.9, GraderHuman, Rejected, []string{BlockNotSuccess}, nil},
		{"model graded", Label{Outcome: Success, Score: 1, Model: "claude-x", RubricVersion: "r1"}, 1, GraderModel, Gold, nil, nil},
		{"ungraded success", Label{Outcome: Success, Score: 1}, 1, GraderUnknown, Gold,
			[]string{BlockNoRubric, BlockNoAttributed}, []string{BlockNoRubric, BlockNoAttributed}},
		{"no rubric", Label{Outcome: Success, Score: 1, Rater: "ana"}, 1, GraderHuman, Gold, []string{BlockNoRubric}, []string{BlockNoRubric}},
		{"no rater", Label{Outcome: Success, Score: 1, RubricVersion: "r1"}, 1, GraderUnknown, Gold, []string{BlockNoAttributed}, []string{BlockNoAttributed}},
		{"every blocker", Label{Outcome: Failure, Score: 0.1}, -0.1, GraderUnknown, Rejected,
			[]string{BlockNotSuccess, BlockSFTScore, BlockNoRubric, BlockNoAttributed}, []string{BlockPrefScore, BlockNoRubric, BlockNoAttributed}},
		{"out of range stored score clamps", Label{Outcome: Success, Score: 7, Rater: "a", RubricVersion: "r"}, 1, GraderHuman, Gold, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Derive(tc.l)
			if tc.sft == nil {
				tc.sft = []string{}
			}
			if tc.pref == nil {
				tc.pref = []string{}
			}
			if d.SignedScore != tc.signed || math.Signbit(d.SignedScore) != (tc.signed < 0) || d.GraderKind != tc.grader || d.EvaluationLabel != tc.label ||
				!reflect.DeepEqual(d.SFTBlockers, tc.sft) || !reflect.DeepEqual(d.PreferenceBlockers, tc.pref) ||
				d.ExportableForSFT != (len(tc.sft) == 0) || d.ExportableForPreference != (len(tc.pref) == 0) {
				t.Errorf("Derive(%+v) = %+v\nwant signed %v grader %s label %s sft %v pref %v", tc.l, d, tc.signed, tc.grader, tc.label, tc.sft, tc.pref)
			}
		})
	}
}

func TestNew(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		in    Input
		score float64
	}{
		{Input{Outcome: "success"}, 1},
		{Input{Outcome: "failure"}, 0},
		{Input{Outcome: " Success "}, 1},
		{Input{Outcome: "success", Score: f(0.7)}, 0.7},
		{Input{Outcome: "success", Score: f(1.5)}, 1},
		{Input{Outcome: "failure", Score: f(-2)}, 0},
		{Input{Outcome: "failure", Score: f(0.3)}, 0.3},
	} {
		l, err := New("x1", tc.in, now)
		if err != nil || l.Score != tc.score || l.ExecutionID != "x1" || !l.Time.Equal(now) || l.Time.Location() != time.UTC {
			t.Errorf("New(%+v) = %+v, %v; want score %v", tc.in, l, err, tc.score)
		}
	}
	for _, in := range []Input{
		{Outcome: "ok"},
		{},
		{Outcome: "success", Rater: "a", Model: "m"},
		{Outcome: "success", Score: f(math.NaN())},
		{Outcome: "success", Note: string(make([]byte, MaxText+1))},
	} {
		if _, err := New("x", in, now); !errors.Is(err, ErrBadLabel) {
			t.Errorf("New(%+v): %v, want ErrBadLabel", in, err)
		}
	}
}
