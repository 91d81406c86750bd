// Package query turns the store into the views that `sepad grades`,
// `explain`, `history`, `sessions`, `executions` and
// `quarantine` print and that the local API serves. The view types are the
// JSON shapes of both, documented in docs/api.md: add fields, never rename
// or remove them.
//
// The functions read through the store's short transactions and return
// plain values: nothing here holds a transaction while the caller encodes
// or prints.
package query

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/outcome"
	"github.com/sepad/sepad/tracevalue"
)

// Errors callers branch on (the API maps them to HTTP statuses).
var (
	// ErrNotFound: no skill, version or execution by that name.
	ErrNotFound = errors.New("not found")
	// ErrBadRequest: a malformed argument (grade, time, limit, name).
	ErrBadRequest = errors.New("bad request")
)

// AmbiguousError says a skill name matched several skills (the same name
// in several projects) where one was needed.
type AmbiguousError struct {
	Arg        string
	Candidates []SkillRef
}

// Error lists the candidates, so the user can pick one.
func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skill %q is ambiguous: it names %d skills; qualify it as PROJECT#name, or give one of these keys (a prompt file path or PROJECT#name):", e.Arg, len(e.Candidates))
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s", DisplayKey(c.Key))
	}
	return b.String()
}

// SkillRef identifies a skill in every view.
type SkillRef struct {
	// Key is the skill's identity: its prompt file when known, else
	// PROJECT#name.
	Key  string `json:"key"`
	Name string `json:"name"`
	// Display is the name people read: "CLAUDE.md" for the session's
	// base prompt (Name "_session"), else Name (DisplayName).
	Display string `json:"display"`
	Kind    string `json:"kind"`
	Project string `json:"project"`
	Path    string `json:"path"`
}

// Statuses of a version (GradeRow.Status).
const (
	StatusBaseline   = "baseline"
	StatusCandidate  = "candidate"
	StatusAccepted   = "accepted"
	StatusRejected   = "rejected"
	StatusRolledBack = "rolled back"
	// StatusWouldRollBack: judged for a rollback while
	// mutation.auto_rollback is off, so still in the file.
	StatusWouldRollBack = "would roll back"
	StatusUngraded      = "ungraded"
	// StatusConflict: a rollback was due, but a person had edited the
	// file since; the edit was left alone.
	StatusConflict = "conflict"
	// StatusPinned: a person pinned the skill to this version (sepad
	// pin): its file is never written, nothing is decided.
	StatusPinned = "pinned"
	// StatusSuperseded is derived (until the mutation engine's state
	// exists): an older graded version that is no longer the baseline.
	StatusSuperseded = "superseded"
)

// GradeRow is one skill version's grade: a row of `sepad grades`.
type GradeRow struct {
	SkillKey string `json:"skill_key"`
	Skill    string `json:"skill"`
	// Display is the skill's name as people read it (DisplayName).
	Display string `json:"display"`
	Kind    string `json:"kind"`
	Project string `json:"project"`
	// Files are, for a version of the session's base prompt (CLAUDE.md),
	// the instruction files it covers: the files its sessions loaded at
	// their start (AttachFiles).
	Files []string `json:"files,omitempty"`
	// Version is the sequence number (1 = first seen), Hash the content
	// hash ("unknown" when no execution said which version ran).
	Version int    `json:"version"`
	Hash    string `json:"hash"`
	// Current marks the version in force.
	Current bool   `json:"current"`
	Status  string `json:"status"`
	// N counts the version's scored executions under the current rubric.
	N int `json:"n"`
	// Aggregate, Mean and SD are null when N is 0.
	Aggregate *float64 `json:"aggregate"`
	Mean      *float64 `json:"mean"`
	SD        *float64 `json:"sd"`
	// Grade is "" while the version is ungraded (N < min_samples).
	Grade  string `json:"grade"`
	Advice string `json:"advice"`
	// Change is Aggregate minus the aggregate of the nearest older graded
	// version that was not rejected or rolled back (the baseline a
	// candidate is decided against), ChangeFrom that version's number;
	// null when either is ungraded.
	Change     *float64 `json:"change"`
	ChangeFrom int      `json:"change_from,omitempty"`
	// Compared is the version's one comparison in `sepad versions`:
	// against its decision's baseline, else the nearest older graded
	// version (AttachCompared; null elsewhere).
	Compared *Compared `json:"compared,omitempty"`
	// LastScore is the score of the version's newest scored execution.
	LastScore *float64 `json:"last_score"`
	FailRate  float64  `json:"fail_rate"`
	// OverClaims counts the version's scored runs (of N) whose final
	// answer claimed more than the tool calls showed, Claims those whose
	// answer claimed something the calls can tell (docs/integrity.md;
	// never part of the score).
	OverClaims int `json:"over_claims"`
	Claims     int `json:"claims"`
	// FirstSeen is when sepad first saw the file's content; null for a
	// version only known from executions that named it.
	FirstSeen *time.Time `json:"first_seen"`
	// Source is how sepad learned of the version (edit, proposal,
	// rollback, or observed: named by executions before its content was
	// seen), Parent the hash of the version it replaced, ContentKnown
	// whether sepad holds its content (sepad show, diff).
	Source       string `json:"source,omitempty"`
	Parent       string `json:"parent,omitempty"`
	ContentKnown bool   `json:"content_known"`
	// Tokens is the version's token use and cost (null when no
	// transcript was read); TokenChange the relative change of its mean
	// tokens from the nearest older graded version (tokens.go).
	Tokens      *Tokens  `json:"tokens,omitempty"`
	TokenChange *float64 `json:"token_change,omitempty"`
	// Models count the version's scored runs by the model that answered
	// them, most runs first (absent when no transcript was read): a
	// decision compares versions on runs of the same model
	// (docs/decisions.md).
	Models []ModelRuns `json:"models,omitempty"`
	// NeededMore is, for an undecided candidate, about how many more runs
	// the engine needs to decide; Pending its last look in words.
	NeededMore *int `json:"needed_more,omitempty"`
	// Evals is the version's latest Claude Code eval suite run, when one
	// was recorded (AttachEvals); never part of the aggregate.
	Evals   *EvalRow `json:"evals,omitempty"`
	Pending string   `json:"pending,omitempty"`
	// Activation is how the skill comes to run under this version's
	// description (skills only; never part of the score).
	Activation *ActivationRow `json:"activation,omitempty"`
}

// Grades is the answer of `sepad grades` and GET /v1/skills.
type Grades struct {
	RubricVersion string     `json:"rubric_version"`
	MinSamples    int        `json:"min_samples"`
	Grades        []GradeRow `json:"grades"`
}

// SkillInfo is a skill with its counters: GET /v1/skills/{skill}.
type SkillInfo struct {
	SkillRef
	Executions   int        `json:"executions"`
	LastSeen     *time.Time `json:"last_seen"`
	VersionCount int        `json:"version_count"`
	// Current is the row of the version in force.
	Current *GradeRow `json:"current"`
}

// SkillDetail is GET /v1/skills/{skill}.
type SkillDetail struct {
	RubricVersion string    `json:"rubric_version"`
	MinSamples    int       `json:"min_samples"`
	Skill         SkillInfo `json:"skill"`
}

// SkillVersions is GET /v1/skills/{skill}/versions: every version, newest
// first.
type SkillVersions struct {
	RubricVersion string     `json:"rubric_version"`
	MinSamples    int        `json:"min_samples"`
	Skill         SkillRef   `json:"skill"`
	Versions      []GradeRow `json:"versions"`
}

// ExecRow is one execution in a listing.
type ExecRow struct {
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	SkillKey  string `json:"skill_key"`
	Skill     string `json:"skill"`
	Display   string `json:"display"`
	Project   string `json:"project"`
	// Version is the version's sequence number (0 when unknown), Hash its
	// content hash.
	Version int       `json:"version"`
	Hash    string    `json:"hash"`
	Time    time.Time `json:"time"`
	// DurationMS is null when unknown.
	DurationMS *int64 `json:"duration_ms"`
	Calls      int    `json:"calls"`
	Failed     int    `json:"failed"`
	Complete   bool   `json:"complete"`
	// Score is null for an unscored execution; Grade is then "".
	Score *float64 `json:"score"`
	Grade string   `json:"grade"`
	// Usage is the tokens and cost read from the transcript, or null
	// with the reason in UsageReason.
	Usage       *execution.Usage `json:"usage,omitempty"`
	UsageReason string           `json:"usage_reason,omitempty"`
}

// Executions is GET /v1/executions and `sepad executions`.
type Executions struct {
	Limit      int       `json:"limit"`
	Executions []ExecRow `json:"executions"`
}

// History is GET /v1/skills/{skill}/history and `sepad history`.
type History struct {
	Skill SkillRef `json:"skill"`
	// Versions are the skill's versions, newest first.
	Versions []GradeRow `json:"versions"`
	// Executions are the newest Limit executions, newest first.
	Executions []ExecRow `json:"executions"`
	Limit      int       `json:"limit"`
	// Total counts all the skill's executions ever recorded; Stored those
	// still stored (sepad prune removes old ones, and the grades keep
	// counting them).
	Total  int `json:"total"`
	Stored int `json:"stored"`
}

// CallRow is one tool call of an explained execution.
type CallRow struct {
	Index int    `json:"index"`
	Tool  string `json:"tool"`
	// Status is "ok", "failed", "interrupted", "no answer", "unknown" or
	// "refused" (the permission layer's, counted neither way).
	Status string `json:"status"`
	OK     bool   `json:"ok"`
	Retry  bool   `json:"retry"`
	// DurationMS is null when Claude Code reported none.
	DurationMS *int64     `json:"duration_ms"`
	Start      *time.Time `json:"start"`
	Error      string     `json:"error"`
	// Source is "transcript" for a call refused before any hook.
	Source string `json:"source,omitempty"`
}

// ShellLineRow is one of a skill's own shell lines (docs/rubric.md,
// "Shell lines"): what ran and who invoked the skill; its result is not
// observed.
type ShellLineRow struct {
	Index   int    `json:"index"`
	Tool    string `json:"tool"`
	Command string `json:"command"`
	// InvokedBy is user (typed), claude (the Skill tool) or other.
	InvokedBy string     `json:"invoked_by"`
	At        *time.Time `json:"at"`
}

// ScoreView is an execution's score with its breakdown.
type ScoreView struct {
	Scored        bool                `json:"scored"`
	Score         *float64            `json:"score"`
	Grade         string              `json:"grade"`
	Advice        string              `json:"advice"`
	RubricVersion string              `json:"rubric_version"`
	Signals       []fitness.Signal    `json:"signals"`
	Errors        fitness.ErrorCounts `json:"errors"`
}

// Entry says how an execution's score entered its version's aggregate.
type Entry struct {
	// In is "window" (among the newest scores the weighted part looks
	// at), "outside_window" (older: counts in n, mean and sd only),
	// "unscored" or "other_rubric" (scored under another rubric version).
	In string `json:"in"`
	// Position is 0 for the newest score of the window (null outside).
	Position *int `json:"position"`
	// Trimmed is "top", "bottom" or "" (kept).
	Trimmed string `json:"trimmed"`
	// Weight is the recency weight it got (0 when trimmed or beyond the
	// weights); Share its fraction of the weights in use.
	Weight float64 `json:"weight"`
	Share  float64 `json:"share"`
	// Window is the number of scores the weighted part looked at.
	Window int `json:"window"`
	// Version is the aggregate it entered.
	Version GradeRow `json:"version"`
}

// Explain is GET /v1/executions/{id} and `sepad explain`.
type Explain struct {
	Execution ExecRow    `json:"execution"`
	AgentID   string     `json:"agent_id"`
	Prompt    string     `json:"prompt"`
	StartedAt *time.Time `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	StopError string     `json:"stop_error"`
	Events    int        `json:"events"`
	Calls     []CallRow  `json:"calls"`
	// ShellLines are the skill's own `` !`cmd` `` lines Claude Code ran
	// when it expanded the skill (2.1.332): not tool calls, no result.
	ShellLines []ShellLineRow `json:"shell_lines"`
	// Compactions are the compactions of the conversation while it ran.
	Compactions []execution.Compaction `json:"compactions"`
	Score       ScoreView              `json:"score"`
	Aggregate   Entry                  `json:"aggregate"`
	// Labels are the execution's labels, newest first (the first counts),
	// with what each means for training data (sepad label).
	Labels []LabelView `json:"labels"`
	// Value is the execution's value score (docs/value.md), Integrity its
	// claims against what the calls showed (docs/integrity.md): recorded
	// beside the score, never part of it; null for an execution stored
	// before sepad computed them, or (Integrity) whose answer claims
	// nothing. Origin is "import" for an execution of `sepad import`.
	Value     *tracevalue.Value `json:"value"`
	Integrity *integrity.Report `json:"integrity"`
	Origin    string            `json:"origin"`
	// Outcome is what the work came to (rubric 4.0.0, docs/outcome.md):
	// the verification runs, the state after the last edit and the
	// answer's claims against them, with the same in plain words; null
	// for an execution scored under an older rubric or with nothing to
	// say (no edit, no verification, no claim).
	Outcome *OutcomeView `json:"outcome"`
}

// OutcomeView is an execution's outcome report and its plain words.
type OutcomeView struct {
	*outcome.Report
	Words []string `json:"words"`
	// Runs are the verification runs in words, one per run.
	RunWords []string `json:"run_words"`
}

// Session is one Claude Code session seen.
type Session struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	// First and Last are the session's first and last event times (null
	// when its events carried none).
	First      *time.Time `json:"first"`
	Last       *time.Time `json:"last"`
	Executions int        `json:"executions"`
	Skills     []string   `json:"skills"`
}

// Sessions is GET /v1/sessions and `sepad sessions`.
type Sessions struct {
	Limit    int       `json:"limit"`
	Sessions []Session `json:"sessions"`
}

// QuarantineLine is one quarantined spool line.
type QuarantineLine struct {
	Seq    uint64    `json:"seq"`
	File   string    `json:"file"`
	Offset int64     `json:"offset"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
	// Head is the start of the raw line (at most HeadBytes bytes, invalid
	// UTF-8 replaced); Bytes the length kept in the store.
	Head  string `json:"head"`
	Bytes int    `json:"bytes"`
}

// HeadBytes bounds QuarantineLine.Head.
const HeadBytes = 120

// Quarantine is GET /v1/quarantine and `sepad quarantine`: the newest
// quarantined lines first.
type Quarantine struct {
	// Total counts every line ever quarantined; Kept those still stored.
	Total int64            `json:"total"`
	Kept  int              `json:"kept"`
	Limit int              `json:"limit"`
	Lines []QuarantineLine `json:"lines"`
}

// Decision is one decision of the mutation engine (its payload is the
// engine's own JSON).
type Decision struct {
	SkillKey string `json:"skill_key"`
	// Project is the skill's project ("" for none): a name used in two
	// projects is told apart by it.
	Project string    `json:"project,omitempty"`
	Seq     uint64    `json:"seq"`
	Time    time.Time `json:"time"`
	Payload any       `json:"payload"`
	// Cost compares the candidate's token use with the baseline's
	// (tokens.go); absent without transcripts.
	Cost *DecisionCost `json:"cost,omitempty"`
}

// Decisions is GET /v1/decisions, newest first.
type Decisions struct {
	Limit     int        `json:"limit"`
	Decisions []Decision `json:"decisions"`
}
