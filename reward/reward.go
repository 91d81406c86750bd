// Package reward holds a label: a person's (or a model's) verdict on one
// execution. Derive computes what a label means for training data (signed
// score, grader kind, evaluation label, SFT and preference eligibility
// with named blockers; docs/export.md states the rules);
// it is pure and the one place those rules live, for `sepad explain` and
// for exports of labelled executions.
package reward

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Outcomes.
const (
	Success = "success"
	Failure = "failure"
)

// Grader kinds.
const (
	GraderHuman   = "human"
	GraderModel   = "model"
	GraderUnknown = "unknown"
)

// Evaluation labels.
const (
	Gold     = "gold"
	Silver   = "silver"
	Bronze   = "bronze"
	Rejected = "rejected"
)

// Thresholds of the evaluation labels and of SFT eligibility.
const (
	GoldMin       = 0.85
	SilverMin     = 0.65
	SFTMin        = 0.65
	PreferenceMin = 0.7
)

// Blockers, as Derive names them.
const (
	BlockNotSuccess   = "outcome is not success"
	BlockSFTScore     = "score below 0.65"
	BlockPrefScore    = "score below 0.7"
	BlockNoRubric     = "missing rubric_version"
	BlockNoAttributed = "missing rater or model"
)

// MaxText bounds a note, a rater, a model id and a rubric version.
const MaxText = 4096

// ErrBadLabel is wrapped by every refusal of New.
var ErrBadLabel = errors.New("bad label")

// Label is one verdict on one execution, as stored. A label is never
// overwritten: an execution's labels are all kept, and the newest (the
// highest Seq) counts.
type Label struct {
	// Seq is the label's place in the store's commit order (shared with
	// executions): labels are applied in this order.
	Seq         uint64 `json:"seq"`
	ExecutionID string `json:"execution_id"`
	Outcome     string `json:"outcome"`
	// Score is the normalised score in [0, 1] (success 1 and failure 0
	// when none was given).
	Score         float64 `json:"score"`
	Note          string  `json:"note,omitempty"`
	Rater         string  `json:"rater,omitempty"`
	Model         string  `json:"model,omitempty"`
	RubricVersion string  `json:"rubric_version,omitempty"`
	// Source says where the label came from when no one gave it by
	// hand: "insights" for Claude Code's /insights facets (`sepad import
	// --facets`); "" for `sepad label` and the API.
	Source string    `json:"source,omitempty"`
	Time   time.Time `json:"time"`
}

// Input is a label as asked for (sepad label, POST .../label).
type Input struct {
	Outcome string `json:"outcome"`
	// Score, when set, is clamped to [0, 1]; unset, success is 1 and
	// failure 0.
	Score         *float64 `json:"score,omitempty"`
	Note          string   `json:"note,omitempty"`
	Rater         string   `json:"rater,omitempty"`
	Model         string   `json:"model,omitempty"`
	RubricVersion string   `json:"rubric_version,omitempty"`
	Source        string   `json:"source,omitempty"`
}

// New checks an input and returns the label for execution id at time now
// (Seq is assigned by the store). A score outside [0, 1] is clamped, so a
// slightly-off grader still counts; one that is not a number is refused.
func New(id string, in Input, now time.Time) (Label, error) {
	l := Label{ExecutionID: id, Outcome: strings.ToLower(strings.TrimSpace(in.Outcome)), Note: in.Note,
		Rater: strings.TrimSpace(in.Rater), Model: strings.TrimSpace(in.Model), RubricVersion: strings.TrimSpace(in.RubricVersion),
		Source: strings.TrimSpace(in.Source), Time: now.UTC()}
	if l.Outcome != Success && l.Outcome != Failure {
		return Label{}, fmt.Errorf("%w: outcome %q: want success or failure", ErrBadLabel, in.Outcome)
	}
	if l.Rater != "" && l.Model != "" {
		return Label{}, fmt.Errorf("%w: give a rater (a person) or a model, not both", ErrBadLabel)
	}
	for _, f := range []struct{ name, v string }{{"note", l.Note}, {"rater", l.Rater}, {"model", l.Model}, {"rubric_version", l.RubricVersion}, {"source", l.Source}} {
		if len(f.v) > MaxText {
			return Label{}, fmt.Errorf("%w: %s is over %d bytes", ErrBadLabel, f.name, MaxText)
		}
	}
	if in.Score != nil && math.IsNaN(*in.Score) {
		return Label{}, fmt.Errorf("%w: score is not a number", ErrBadLabel)
	}
	l.Score = Normalize(l.Outcome, in.Score)
	return l, nil
}

// Normalize is a label's score: the given score clamped to [0, 1], or
// with none (or NaN) success 1 and failure 0.
func Normalize(outcome string, score *float64) float64 {
	if score == nil || math.IsNaN(*score) {
		if outcome == Success {
			return 1
		}
		return 0
	}
	return math.Min(1, math.Max(0, *score))
}

// Words describe a label in one line: "failure 0.00 by ana", "success
// 0.90 by model m1", "failure 0.25 from insights", "success 1.00 (no
// rater)".
func (l Label) Words() string {
	who := " (no rater)"
	switch {
	case l.Source != "" && l.Rater == "" && l.Model == "":
		who = " from " + l.Source
	case l.Rater != "":
		who = " by " + l.Rater
	case l.Model != "":
		who = " by model " + l.Model
	}
	return fmt.Sprintf("%s %.2f%s", l.Outcome, l.Score, who)
}

// Derived is what a label means for training data.
type Derived struct {
	// SignedScore is the score, negative for a failure.
	SignedScore float64 `json:"signed_score"`
	// GraderKind: model with a model id, human with a rater, else unknown.
	GraderKind string `json:"grader_kind"`
	// EvaluationLabel: rejected for a failure, else gold (≥ 0.85),
	// silver (≥ 0.65) or bronze.
	EvaluationLabel string `json:"evaluation_label"`
	// ExportableForSFT: a success scored ≥ 0.65 with a rubric version and
	// a rater or model; SFTBlockers name what is missing (empty when
	// exportable).
	ExportableForSFT bool     `json:"exportable_for_sft"`
	SFTBlockers      []string `json:"sft_blockers"`
	// ExportableForPreference: scored ≥ 0.7 with a rubric version and a
	// rater or model (either outcome: a preference pair needs both).
	ExportableForPreference bool     `json:"exportable_for_preference"`
	PreferenceBlockers      []string `json:"preference_blockers"`
}

// Derive computes the derived fields of a label. It is pure.
func Derive(l Label) Derived {
	s := math.Min(1, math.Max(0, l.Score))
	if math.IsNaN(l.Score) {
		s = 0
	}
	d := Derived{SignedScore: s, GraderKind: GraderUnknown, SFTBlockers: []string{}, PreferenceBlockers: []string{}}
	if l.Outcome != Success {
		d.SignedScore = -s
		if s == 0 {
			d.SignedScore = 0 // not -0
		}
	}
	switch {
	case l.Model != "":
		d.GraderKind = GraderModel
	case l.Rater != "":
		d.GraderKind = GraderHuman
	}
	switch {
	case l.Outcome != Success:
		d.EvaluationLabel = Rejected
	case s >= GoldMin:
		d.EvaluationLabel = Gold
	case s >= SilverMin:
		d.EvaluationLabel = Silver
	default:
		d.EvaluationLabel = Bronze
	}
	attributed := l.Rater != "" || l.Model != ""
	if l.Outcome != Success {
		d.SFTBlockers = append(d.SFTBlockers, BlockNotSuccess)
	}
	if s < SFTMin {
		d.SFTBlockers = append(d.SFTBlockers, BlockSFTScore)
	}
	if s < PreferenceMin {
		d.PreferenceBlockers = append(d.PreferenceBlockers, BlockPrefScore)
	}
	if l.RubricVersion == "" {
		d.SFTBlockers = append(d.SFTBlockers, BlockNoRubric)
		d.PreferenceBlockers = append(d.PreferenceBlockers, BlockNoRubric)
	}
	if !attributed {
		d.SFTBlockers = append(d.SFTBlockers, BlockNoAttributed)
		d.PreferenceBlockers = append(d.PreferenceBlockers, BlockNoAttributed)
	}
	d.ExportableForSFT = len(d.SFTBlockers) == 0
	d.ExportableForPreference = len(d.PreferenceBlockers) == 0
	return d
}
