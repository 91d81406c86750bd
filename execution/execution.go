// Package execution groups hook events into executions: one run of one skill
// version inside a session turn. The rules are documented in
// docs/executions.md. The package is pure: no I/O and no clock; the state of
// a Grouper can be saved and restored so open executions survive restarts.
package execution

import (
	"time"
)

// SessionSkill is the pseudo-skill for tool calls made before any skill is
// invoked in a turn: the session's base prompt (every instruction file
// loaded at the session's start, see instructions.go).
const SessionSkill = "_session"

// ToolCall is one tool invocation inside an execution.
type ToolCall struct {
	ID   string `json:"id,omitempty"` // tool_use_id
	Name string `json:"name"`
	// InputHash identifies the tool input (sha256 of its compacted JSON,
	// 16 hex digits): enough to tell a retry, without keeping file contents
	// or commands in the state.
	InputHash string `json:"input_hash,omitempty"`
	// Outcome of the call.
	Failed      bool `json:"failed,omitempty"`
	Interrupted bool `json:"interrupted,omitempty"`
	NoPost      bool `json:"no_post,omitempty"` // PreToolUse never answered
	// Unknown is set instead of NoPost for a PreToolUse never answered in
	// a source that is not known to record every post event (an imported
	// log without post events for that part of the session): the call's
	// outcome is unknown, neither a success nor a failure.
	Unknown bool   `json:"unknown,omitempty"`
	Error   string `json:"error,omitempty"`
	// Kind is "test", "build" or "deploy" for a Bash command that runs
	// one (CommandKind), for the integrity track.
	Kind string `json:"kind,omitempty"`
	// Command is a Bash call's command (at most maxCommand bytes), which
	// package outcome reads for the verification runs (tests, builds,
	// linters) and the tests they select.
	Command string `json:"command,omitempty"`
	// Retry is true when this call repeats the same tool and input as an
	// earlier failed call of the same execution.
	Retry bool `json:"retry,omitempty"`
	// DurationMS is the tool's reported duration; HasDuration says whether
	// Claude Code reported one.
	DurationMS  int64     `json:"duration_ms,omitempty"`
	HasDuration bool      `json:"has_duration,omitempty"`
	Start       time.Time `json:"start,omitempty"`
	End         time.Time `json:"end,omitempty"`
	// Response holds a bounded prefix of the tool_response text, kept as
	// evidence for error-pattern heuristics (soft failures), and only when
	// the text looks like it could hold an error.
	Response string `json:"response,omitempty"`
	// Denied is set when Claude Code's permission layer refused the call
	// (PermissionDenied): neither a success nor a failure of the prompt;
	// Error holds the reason.
	Denied bool `json:"denied,omitempty"`
	// done is true once a post event was seen.
	Done bool `json:"done,omitempty"`
	// Source is "transcript" for a failed call no hook reported, found in
	// the session transcript (package transcript); "" for hook events.
	Source string `json:"source,omitempty"`
}

// OK reports whether the call succeeded (false when its outcome is
// unknown).
func (c *ToolCall) OK() bool {
	return !c.Failed && !c.Interrupted && !c.NoPost && !c.Unknown && !c.Denied
}

// Failure reports whether the call failed: not OK, its outcome known,
// and not refused by the permission layer.
func (c *ToolCall) Failure() bool { return !c.OK() && !c.Unknown && !c.Denied }

// Execution is one run of one skill version, the unit sepad scores.
type Execution struct {
	// ID is stable for the same input: session, agent, and the index of the
	// execution within that thread (see docs/executions.md).
	ID        string `json:"id"`
	SessionID string `json:"session_id"`
	AgentID   string `json:"agent_id,omitempty"`
	// PromptID is Claude Code's prompt_id (>= 2.1.196) of the user prompt
	// the execution started in: its own telemetry's prompt.id, which lets
	// an OpenTelemetry pipeline join sepad's grade with it ("" before
	// 2.1.196).
	PromptID string `json:"prompt_id,omitempty"`
	// ForkAgents are the subagents that ran this skill (`context:
	// fork`): their calls are this execution's, and so are the tokens in
	// their transcripts.
	ForkAgents []string `json:"fork_agents,omitempty"`
	// Skill is the skill name (or SessionSkill, or the agent type).
	Skill string `json:"skill"`
	// Kind is "skill", "agent" or "session".
	Kind string `json:"kind"`
	// SkillPath is the prompt file, when the hook resolved it.
	SkillPath string `json:"skill_path,omitempty"`
	// Project is the project directory that qualifies Skill.
	Project      string `json:"project,omitempty"`
	SkillVersion string `json:"skill_version,omitempty"`
	// Plugin and PluginVersion name the Claude Code plugin SkillPath
	// belongs to (a plugin's skill, command or agent).
	Plugin        string `json:"plugin,omitempty"`
	PluginVersion string `json:"plugin_version,omitempty"`
	// Instructions is the manifest of a _session execution: the
	// instruction files loaded at the session's start, whose version is
	// SkillVersion (instructions.go).
	Instructions []InstructionFile `json:"instructions,omitempty"`
	// Loaded lists the instruction files Claude Code loaded while it ran
	// (nested CLAUDE.md files, rules matched by paths:).
	Loaded []LoadedFile `json:"loaded,omitempty"`
	// InvokedBy says who invoked a skill's execution (Kind "skill", main
	// thread): InvokedByClaude for the Skill tool (the model chose the
	// skill by its description), InvokedByUser for a typed `/skill`.
	// MissedActivation marks a typed invocation right after a turn of
	// the same session in which the skill was not used: the model missed
	// it and the person had to ask (activation.go, docs/activation.md).
	InvokedBy        string `json:"invoked_by,omitempty"`
	MissedActivation bool   `json:"missed_activation,omitempty"`
	// Prompt is the user prompt or invocation arguments that started it.
	Prompt    string     `json:"prompt,omitempty"`
	StartedAt time.Time  `json:"started_at,omitempty"`
	EndedAt   time.Time  `json:"ended_at,omitempty"`
	Calls     []ToolCall `json:"calls,omitempty"`
	// Compactions are the compactions of the conversation while the
	// execution ran (PreCompact): the model went on from a summary.
	Compactions []Compaction `json:"compactions,omitempty"`
	// ShellLines are the skill's own `` !`cmd` `` lines Claude Code ran
	// when it expanded the skill's text (shell.go): not tool calls.
	ShellLines []ShellLine `json:"shell_lines,omitempty"`
	// Output is the final assistant message of the closing event.
	Output    string `json:"output,omitempty"`
	HasOutput bool   `json:"has_output,omitempty"`
	// Corrections counts later user prompts that reject or revert this
	// execution's answer, Acceptances those that accept it (ReadVerdict);
	// Verdicts keeps each, in order, with the start of its prompt.
	Corrections int             `json:"corrections,omitempty"`
	Acceptances int             `json:"acceptances,omitempty"`
	Verdicts    []VerdictRecord `json:"verdicts,omitempty"`
	// AfterStop is sepad's own check of the project after the execution
	// (outcome.after_stop), when one ran; nil otherwise.
	AfterStop *Check `json:"after_stop,omitempty"`
	// Repairs counts the turns that repaired this execution's answer
	// after a correction: their calls and output are this execution's
	// (docs/executions.md, "The person's verdict").
	Repairs int `json:"repairs,omitempty"`
	// WaitedMS is the time spent waiting for the person between the
	// answer and a correction it was repaired after: not the run's time.
	WaitedMS int64 `json:"waited_ms,omitempty"`
	// StopError is the StopFailure error (rate_limit, …) when the turn ended
	// on an API error.
	StopError string `json:"stop_error,omitempty"`
	// Complete is false when the input ended (or the idle timeout fired)
	// before a closing event.
	Complete bool `json:"complete"`
	// Events counts the events attributed to this execution.
	Events int `json:"events"`
	// LastEvent is the time of the newest event, for idle timeouts.
	LastEvent time.Time `json:"last_event,omitempty"`
	// TranscriptPath is the session transcript named by the events
	// (transcript_path); the daemon reads Usage and hidden failures there.
	TranscriptPath string `json:"transcript_path,omitempty"`
	// Usage is the tokens and cost read from the transcript; nil when it
	// was not read, with the reason in UsageReason.
	Usage       *Usage `json:"usage,omitempty"`
	UsageReason string `json:"usage_reason,omitempty"`
	// Origin is "import" for an execution built from logs read by `sepad
	// import`, "" for one from sepad's own spool.
	Origin string `json:"origin,omitempty"`
	// FailuresOnly is set on an imported execution whose session's log
	// records tool failures (PostToolUseFailure) but never a success
	// (PostToolUse), when some of its calls are of unknown outcome: the
	// calls whose outcome is known are then its failures alone, a biased
	// sample, so the rubric leaves tool success out (docs/rubric.md).
	FailuresOnly bool `json:"failures_only,omitempty"`
}

// Key returns the identity of the skill measured: the prompt file when
// known, else project plus name.
func (x *Execution) Key() string {
	if x.SkillPath != "" {
		return x.SkillPath
	}
	return x.Project + "#" + x.Skill
}

// Duration returns the execution's duration in milliseconds and whether it is
// known: the span between the first and last event times, less the time
// waited for the person before a repair, else the sum of the tools'
// reported durations.
func (x *Execution) Duration() (int64, bool) {
	if !x.StartedAt.IsZero() && !x.EndedAt.IsZero() && x.EndedAt.After(x.StartedAt) {
		return max(0, x.EndedAt.Sub(x.StartedAt).Milliseconds()-x.WaitedMS), true
	}
	var sum int64
	n := 0
	for _, c := range x.Calls {
		if c.HasDuration {
			sum += c.DurationMS
			n++
		}
	}
	if n > 0 {
		return sum, true
	}
	return 0, false
}

// Invocation is the index of the call that invoked this execution's
// skill (the Skill tool call its part starts with), or -1. That call is
// the caller's, not a tool call of the run: the rubric does not count it
// (docs/rubric.md).
func (x *Execution) Invocation() int {
	if x.Kind == "skill" && len(x.Calls) > 0 && x.Calls[0].Name == "Skill" {
		return 0
	}
	return -1
}

// Failures counts failed tool calls (not those of unknown outcome).
func (x *Execution) Failures() int {
	n := 0
	for i := range x.Calls {
		if x.Calls[i].Failure() {
			n++
		}
	}
	return n
}

// UnknownOutcomes counts tool calls whose outcome is unknown.
func (x *Execution) UnknownOutcomes() int {
	n := 0
	for i := range x.Calls {
		if x.Calls[i].Unknown {
			n++
		}
	}
	return n
}

// Denials counts the calls the permission layer refused.
func (x *Execution) Denials() int {
	n := 0
	for i := range x.Calls {
		if x.Calls[i].Denied {
			n++
		}
	}
	return n
}

// Edited reports whether x changed a file: a call of a tool that edits
// files (ChangesFiles) went through.
func (x *Execution) Edited() bool {
	for i := range x.Calls {
		if ChangesFiles(x.Calls[i].Name) && x.Calls[i].OK() {
			return true
		}
	}
	return false
}

// Retries counts calls that repeat a failed call.
func (x *Execution) Retries() int {
	n := 0
	for i := range x.Calls {
		if x.Calls[i].Retry {
			n++
		}
	}
	return n
}
