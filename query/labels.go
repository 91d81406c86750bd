package query

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/store"
)

// LabelView is a label with what it means for training data
// (reward.Derive), as explain and POST .../label show it.
type LabelView struct {
	reward.Label
	reward.Derived
}

// ViewOf derives a label's view.
func ViewOf(l reward.Label) LabelView { return LabelView{Label: l, Derived: reward.Derive(l)} }

// LabelAnswer is POST /v1/executions/{id}/label and `sepad label`.
type LabelAnswer struct {
	ExecutionID string `json:"execution_id"`
	Skill       string `json:"skill"`
	SkillKey    string `json:"skill_key"`
	// Version is the execution's version, as vN.
	Version string    `json:"version"`
	Label   LabelView `json:"label"`
	// ScoreBefore and Score are the execution's score before and after
	// the label (null when unscored); Rescored says whether it changed
	// (an execution scored under an older rubric keeps its score).
	ScoreBefore *float64 `json:"score_before"`
	Score       *float64 `json:"score"`
	Rescored    bool     `json:"rescored"`
	// Status is the version's status after the label (a label can settle
	// a pending decision).
	Status string `json:"status"`
	Words  string `json:"words"`
}

// ResolveExecution returns the full ID of the execution arg names: an ID,
// a unique prefix of 4+ characters, or "last" (the newest execution, of
// skill when given).
func ResolveExecution(db *store.DB, arg, skill string) (string, error) {
	if arg == "last" {
		f := record.Filter{Limit: 1}
		if skill != "" {
			ref, err := Resolve(db, skill)
			if err != nil {
				return "", err
			}
			f.SkillKey = ref.Key
		}
		xs, err := db.Executions(f)
		if err != nil {
			return "", err
		}
		if len(xs) == 0 {
			if skill != "" {
				return "", &NotFoundError{Msg: fmt.Sprintf("no execution of %s yet", skill)}
			}
			return "", &NotFoundError{Msg: "no execution yet"}
		}
		return xs[0].Exec.ID, nil
	}
	if err := validID(arg); err != nil {
		return "", err
	}
	s, err := db.Execution(arg)
	if errors.Is(err, store.ErrNotFound) {
		return "", &NotFoundError{Msg: fmt.Sprintf("no execution %q", arg)}
	}
	if err != nil {
		return "", fmt.Errorf("%w: %v: give more of it", ErrBadRequest, err)
	}
	if skill != "" {
		ref, err := Resolve(db, skill)
		if err != nil {
			return "", err
		}
		if ref.Key != s.SkillKey {
			return "", fmt.Errorf("%w: execution %s is of %s, not %s", ErrBadRequest, s.Exec.ID, DisplayName(s.Exec.Skill), skill)
		}
	}
	return s.Exec.ID, nil
}

// AnswerOf words what a label did.
func AnswerOf(db *store.DB, ap *store.LabelApplied, status string) *LabelAnswer {
	x := &ap.Execution
	a := &LabelAnswer{ExecutionID: x.Exec.ID, Skill: x.Exec.Skill, SkillKey: x.SkillKey, Version: x.Version,
		Label: ViewOf(ap.Label), Rescored: ap.Rescored, Status: status}
	if sk, err := db.Skill(x.SkillKey); err == nil && sk != nil {
		for _, v := range sk.Versions {
			if v.Hash == x.Version {
				a.Version = fmt.Sprintf("v%d", v.Seq)
			}
		}
	}
	if ap.Before.Scored {
		a.ScoreBefore = ptr(ap.Before.Score)
	}
	if x.Result.Scored {
		a.Score = ptr(x.Result.Score)
	}
	l := &a.Label
	who := ""
	switch {
	case l.Rater != "":
		who = " by " + l.Rater
	case l.Model != "":
		who = " by model " + l.Model
	}
	a.Words = fmt.Sprintf("labelled %s (%s %s) %s %.2f%s", short(x.Exec.ID), DisplayName(x.Exec.Skill), a.Version, l.Outcome, l.Score, who)
	switch {
	case ap.Rescored:
		a.Words += fmt.Sprintf("; score %s → %s", fmtScore(a.ScoreBefore), fmtScore(a.Score))
	case x.Result.RubricVersion != "" && x.Result.RubricVersion != db.Rubric():
		a.Words += fmt.Sprintf("; scored under rubric %s, its score is kept", x.Result.RubricVersion)
	default:
		a.Words += "; score unchanged"
	}
	switch status {
	case "":
	case "baseline", "candidate": // one of each per skill
		a.Words += "; " + a.Version + " is the " + status
	default:
		a.Words += "; " + a.Version + " is " + status
	}
	return a
}

func fmtScore(p *float64) string {
	if p == nil {
		return "unscored"
	}
	return fmt.Sprintf("%.2f", *p)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// validID refuses an execution ID argument that cannot be one.
func validID(id string) error {
	if id == "" || len(id) > MaxIDBytes || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("%w: execution id %q", ErrBadRequest, id)
	}
	return nil
}
