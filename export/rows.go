package export

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/tracevalue"
)

// Row is one execution in the jsonl format (docs/export.md).
type Row struct {
	Schema       int        `json:"schema"`
	ID           string     `json:"id"`
	SessionID    string     `json:"session_id"`
	AgentID      string     `json:"agent_id"`
	Skill        string     `json:"skill"`
	SkillKey     string     `json:"skill_key"`
	Kind         string     `json:"kind"`
	Project      string     `json:"project"`
	Version      string     `json:"version"`
	VersionSeq   int        `json:"version_seq"`
	Origin       string     `json:"origin"`
	Seq          uint64     `json:"seq"`
	StartedAt    *time.Time `json:"started_at"`
	EndedAt      *time.Time `json:"ended_at"`
	DurationMS   *int64     `json:"duration_ms"`
	Complete     bool       `json:"complete"`
	Prompt       string     `json:"prompt"`
	Output       string     `json:"output"`
	StopError    string     `json:"stop_error"`
	ToolCalls    int        `json:"tool_calls"`
	ToolFailures int        `json:"tool_failures"`
	Unknown      int        `json:"unknown_outcome"`
	Retries      int        `json:"retries"`
	Corrections  int        `json:"corrections"`
	// Acceptances and Repairs: the person's other verdicts on the answer,
	// and the repair turns after a correction (docs/executions.md).
	Acceptances int `json:"acceptances"`
	Repairs     int `json:"repairs"`
	// Tools are the calls' tool names in order.
	Tools         []string            `json:"tools"`
	Scored        bool                `json:"scored"`
	Score         *float64            `json:"score"`
	Grade         string              `json:"grade"`
	RubricVersion string              `json:"rubric_version"`
	Signals       []fitness.Signal    `json:"signals"`
	Errors        fitness.ErrorCounts `json:"errors"`
	Usage         *execution.Usage    `json:"usage"`
	CostUSD       *float64            `json:"cost_usd"`
	Value         *tracevalue.Value   `json:"value"`
	Integrity     *integrity.Report   `json:"integrity"`
	Label         *LabelRow           `json:"label"`
}

func fullRow(s *record.Scored, l *reward.Label, seq int) any {
	x := &s.Exec
	r := Row{Schema: SchemaVersion, ID: x.ID, SessionID: x.SessionID, AgentID: x.AgentID, Skill: x.Skill, SkillKey: s.SkillKey,
		Kind: x.Kind, Project: x.Project, Version: s.Version, VersionSeq: seq, Origin: x.Origin, Seq: s.Seq,
		StartedAt: timePtr(x.StartedAt), EndedAt: timePtr(x.EndedAt), Complete: x.Complete, Prompt: x.Prompt, Output: x.Output,
		StopError: x.StopError, ToolCalls: len(x.Calls), ToolFailures: x.Failures(), Unknown: x.UnknownOutcomes(),
		Retries: x.Retries(), Corrections: x.Corrections, Acceptances: x.Acceptances, Repairs: x.Repairs, Tools: make([]string, 0, len(x.Calls)),
		Scored: s.Result.Scored, Score: scoreOf(&s.Result), Grade: string(s.Result.Grade), RubricVersion: s.Result.RubricVersion,
		Signals: s.Result.Signals, Errors: s.Result.Errors, Usage: x.Usage, Value: s.Value, Integrity: s.Integrity, Label: labelRow(l)}
	if d, ok := x.Duration(); ok {
		r.DurationMS = &d
	}
	for i := range x.Calls {
		r.Tools = append(r.Tools, x.Calls[i].Name)
	}
	if r.Signals == nil {
		r.Signals = []fitness.Signal{}
	}
	if x.Usage != nil {
		c := round4(float64(x.Usage.CostNanoUSD) / 1e9)
		r.CostUSD = &c
	}
	return r
}

// RewardRow is one labelled execution in the reward format: the label's
// normalised fields (reward_jsonl, docs/export.md).
type RewardRow struct {
	Schema      int       `json:"schema"`
	ExecutionID string    `json:"execution_id"`
	Skill       string    `json:"skill"`
	SkillKey    string    `json:"skill_key"`
	Version     string    `json:"version"`
	VersionSeq  int       `json:"version_seq"`
	Outcome     string    `json:"outcome"`
	Score       float64   `json:"score"`
	Feedback    string    `json:"feedback"`
	Rater       string    `json:"rater"`
	Model       *string   `json:"llm_model_id"`
	Rubric      string    `json:"rubric_version"`
	RatedAt     time.Time `json:"rated_at"`
	reward.Derived
	// FitnessScore is sepad's own score of the execution (0-100; null
	// when unscored), for comparison with the label.
	FitnessScore *float64 `json:"fitness_score"`
}

func rewardRow(s *record.Scored, l *reward.Label, seq int) any {
	if l == nil {
		return nil
	}
	r := RewardRow{Schema: SchemaVersion, ExecutionID: s.Exec.ID, Skill: s.Exec.Skill, SkillKey: s.SkillKey, Version: s.Version,
		VersionSeq: seq, Outcome: l.Outcome, Score: l.Score, Feedback: l.Note, Rater: l.Rater, Rubric: l.RubricVersion,
		RatedAt: l.Time.UTC(), Derived: reward.Derive(*l), FitnessScore: scoreOf(&s.Result)}
	if l.Model != "" {
		m := l.Model
		r.Model = &m
	}
	return r
}

// SFTRow is one SFT-eligible execution: the instruction (the turn's
// prompt, with the skill it invoked) and the response (the final answer).
type SFTRow struct {
	Schema          int     `json:"schema"`
	Instruction     string  `json:"instruction"`
	Skill           string  `json:"skill"`
	Response        string  `json:"response"`
	ExecutionID     string  `json:"execution_id"`
	Version         string  `json:"version"`
	Score           float64 `json:"score"`
	EvaluationLabel string  `json:"evaluation_label"`
}

func sftRow(s *record.Scored, l *reward.Label, _ int) any {
	if l == nil || !s.Exec.HasOutput || s.Exec.Output == "" {
		return nil
	}
	d := reward.Derive(*l)
	if !d.ExportableForSFT {
		return nil
	}
	return SFTRow{Schema: SchemaVersion, Instruction: instruction(&s.Exec), Skill: s.Exec.Skill, Response: s.Exec.Output,
		ExecutionID: s.Exec.ID, Version: s.Version, Score: l.Score, EvaluationLabel: d.EvaluationLabel}
}

// instruction is the turn's prompt, as the user typed it: "/skill args"
// for a skill invoked with arguments, the skill's name alone when there
// was no prompt.
func instruction(x *execution.Execution) string {
	p := strings.TrimSpace(x.Prompt)
	if x.Kind == "skill" {
		if p == "" {
			return "/" + x.Skill
		}
		return "/" + x.Skill + " " + p
	}
	if p == "" {
		return x.Skill
	}
	return p
}

// csvColumns are the csv format's columns (docs/export.md).
var csvColumns = []string{"schema", "id", "session_id", "agent_id", "skill", "skill_key", "kind", "project", "version", "version_seq",
	"origin", "seq", "started_at", "ended_at", "duration_ms", "complete", "tool_calls", "tool_failures", "unknown_outcome", "retries",
	"corrections", "scored", "score", "grade", "rubric_version",
	fitness.SignalToolSuccess, fitness.SignalOutput, fitness.SignalEfficiency, fitness.SignalErrorRate, fitness.SignalStructure,
	"errors", "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens", "models", "cost_usd", "cost_known",
	"value", "value_complexity", "value_novelty", "value_tool_diversity", "value_outcome_confidence", "over_claim", "claims",
	"label_outcome", "label_score", "signed_score", "grader_kind", "evaluation_label", "exportable_for_sft", "exportable_for_preference",
	"prompt", "output"}

type csvRows struct {
	w      *csv.Writer
	header bool
}

func newCSV(w io.Writer) *csvRows { return &csvRows{w: csv.NewWriter(w)} }

func (c *csvRows) row(s *record.Scored, l *reward.Label, seq int) (bool, error) {
	if !c.header {
		c.header = true
		if err := c.w.Write(csvColumns); err != nil {
			return false, err
		}
	}
	r := fullRow(s, l, seq).(Row)
	b := strconv.FormatBool
	opt := func(f *float64) string {
		if f == nil {
			return ""
		}
		return formatFloat(*f)
	}
	rec := []string{strconv.Itoa(r.Schema), r.ID, r.SessionID, r.AgentID, r.Skill, r.SkillKey, r.Kind, r.Project, r.Version, strconv.Itoa(r.VersionSeq),
		r.Origin, strconv.FormatUint(r.Seq, 10), csvTime(r.StartedAt), csvTime(r.EndedAt), "", b(r.Complete), strconv.Itoa(r.ToolCalls),
		strconv.Itoa(r.ToolFailures), strconv.Itoa(r.Unknown), strconv.Itoa(r.Retries), strconv.Itoa(r.Corrections), b(r.Scored), opt(r.Score),
		r.Grade, r.RubricVersion}
	if r.DurationMS != nil {
		rec[14] = strconv.FormatInt(*r.DurationMS, 10)
	}
	for _, name := range csvColumns[25:30] {
		v := ""
		for _, g := range r.Signals {
			if g.Signal == name && g.Present {
				v = formatFloat(g.SubScore)
			}
		}
		rec = append(rec, v)
	}
	rec = append(rec, strconv.Itoa(r.Errors.Total))
	if u := r.Usage; u != nil {
		rec = append(rec, strconv.FormatInt(u.InputTokens, 10), strconv.FormatInt(u.OutputTokens, 10), strconv.FormatInt(u.CacheReadTokens, 10),
			strconv.FormatInt(u.CacheCreationTokens, 10), strings.Join(u.Models, " "), opt(r.CostUSD), b(u.CostKnown))
	} else {
		rec = append(rec, "", "", "", "", "", "", "")
	}
	if v := r.Value; v != nil {
		rec = append(rec, formatFloat(v.Score), formatFloat(v.Complexity), formatFloat(v.Novelty), formatFloat(v.ToolDiversity), formatFloat(v.OutcomeConfidence))
	} else {
		rec = append(rec, "", "", "", "", "")
	}
	over, claims := "", ""
	if r.Integrity != nil {
		over = b(r.Integrity.OverClaim)
		var names []string
		for _, o := range r.Integrity.Observations {
			names = append(names, o.Claim)
		}
		claims = strings.Join(names, " ")
	}
	rec = append(rec, over, claims)
	if lr := r.Label; lr != nil {
		rec = append(rec, lr.Outcome, formatFloat(lr.Score), formatFloat(lr.SignedScore), lr.GraderKind, lr.EvaluationLabel,
			b(lr.ExportableForSFT), b(lr.ExportableForPreference))
	} else {
		rec = append(rec, "", "", "", "", "", "", "")
	}
	rec = append(rec, r.Prompt, r.Output)
	return true, c.w.Write(rec)
}

func (c *csvRows) flush() error {
	if !c.header {
		if err := c.w.Write(csvColumns); err != nil {
			return err
		}
	}
	c.w.Flush()
	return c.w.Error()
}

func csvTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}
