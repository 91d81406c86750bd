// Package event decodes one line of a sepad spool or hook log into an Event.
//
// Three line formats are accepted (see docs/events.md):
//
//  1. raw Claude Code hook payloads, exactly as written to a hook's stdin;
//  2. the same payload enriched by `sepad hook` with a "sepa" object;
//  3. lines of the original SEPA hook: {"ts","tool","exit","success","version","session"}.
//
// Every field except session_id and hook_event_name is optional and
// version-dependent; unknown fields are kept in Raw and never an error.
package event

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SchemaVersion is the version of the "sepa" enrichment object written by
// `sepad hook`. Readers accept any version <= SchemaVersion.
const SchemaVersion = 1

// Hook event names sepad understands. Others are kept and ignored.
const (
	PreToolUse          = "PreToolUse"
	PostToolUse         = "PostToolUse"
	PostToolUseFailure  = "PostToolUseFailure"
	PostToolBatch       = "PostToolBatch"
	UserPromptSubmit    = "UserPromptSubmit"
	UserPromptExpansion = "UserPromptExpansion"
	Stop                = "Stop"
	StopFailure         = "StopFailure"
	SubagentStart       = "SubagentStart"
	SubagentStop        = "SubagentStop"
	SessionStart        = "SessionStart"
	SessionEnd          = "SessionEnd"
	// InstructionsLoaded names one instruction file (CLAUDE.md, a rule,
	// an import) Claude Code loaded: file_path, memory_type, load_reason.
	InstructionsLoaded = "InstructionsLoaded"
	// PreSkillShellCommand (Claude Code 2.1.332) fires before each
	// `` !`cmd` `` line of a skill or command's text: command_name is the
	// skill, invoked_by who invoked it. No post event follows.
	PreSkillShellCommand = "PreSkillShellCommand"
	// PermissionDenied names a call (tool_use_id) the permission layer
	// refused, with its reason; no post event follows.
	PermissionDenied = "PermissionDenied"
	// PreCompact and PostCompact surround a compaction of the
	// conversation: trigger is manual (/compact) or auto.
	PreCompact  = "PreCompact"
	PostCompact = "PostCompact"
	// Legacy is the synthetic event name given to lines of the original
	// SEPA hook, each of which records one finished tool call.
	Legacy = "SEPALegacy"
	// Quarantined is the synthetic event name of a payload the hook could
	// not parse and stored as a raw string (see Sepa.Quarantine).
	Quarantined = "Quarantined"
)

// Format tells which of the accepted line formats an event came from.
type Format int

// Line formats.
const (
	FormatHook     Format = iota + 1 // raw Claude Code payload
	FormatEnriched                   // payload with a "sepa" object
	FormatLegacy                     // original SEPA hook line
)

// String names the format as `sepad score` and the docs do.
func (f Format) String() string {
	switch f {
	case FormatHook:
		return "hook"
	case FormatEnriched:
		return "enriched"
	case FormatLegacy:
		return "legacy"
	}
	return "unknown"
}

// MaxIdentity bounds, in bytes, each field of a line that names
// something sepad keeps apart (a session, an agent, an event name, a
// directory, a prompt file, a transcript, a prompt, a tool call): the
// store makes keys of them, and bbolt refuses a key over 32 KiB, failing
// the whole commit. 4096 is Linux's PATH_MAX; Claude Code's identifiers
// are a few dozen bytes. A line with a longer one is malformed: the hook
// and the collector quarantine it with the field and its length
// (docs/events.md, "Quarantine"; the store bounds its keys again:
// docs/store.md, "Keys are bounded").
const MaxIdentity = 4096

// ErrMalformed is wrapped by every ParseLine error: the line is not an event
// sepad can use. Callers quarantine such lines with the error's text.
var ErrMalformed = errors.New("malformed event")

// Sepa is the enrichment object `sepad hook` adds under the "sepa" key.
type Sepa struct {
	// V is the schema version of this object (SchemaVersion when written).
	V int `json:"v"`
	// TS is when the hook received the payload.
	TS time.Time `json:"ts"`
	// Skill is the name of the skill, command or agent the event invokes.
	Skill string `json:"skill,omitempty"`
	// SkillPath is the prompt file the hook resolved for Skill.
	SkillPath string `json:"skill_path,omitempty"`
	// SkillVersion is the first 12 hex digits of the sha256 of SkillPath's
	// content when the hook ran.
	SkillVersion string `json:"skill_version,omitempty"`
	// SkillLink is "outside_project" when SkillPath is a link (or lies
	// in a linked directory) that leads out of its project: the file is
	// recorded by its path, and the target is never hashed.
	SkillLink string `json:"skill_link,omitempty"`
	// Project is the project directory (repo root of cwd when found).
	Project string `json:"project,omitempty"`
	// Cut lists the fields shortened by the hook's size bound.
	Cut []Cut `json:"cut,omitempty"`
	// Quarantine is set when the payload was not JSON: the reason, with the
	// payload kept as a string in Raw.
	Quarantine string `json:"quarantine,omitempty"`
	// Raw holds a payload that could not be parsed, as a (valid UTF-8) string.
	Raw string `json:"raw,omitempty"`
	// Instructions is the session's instruction files as found on disk
	// (SessionStart: Version and Files), or the hash of the file an
	// InstructionsLoaded names (Files only).
	Instructions *Instructions `json:"instructions,omitempty"`
	// Via is "plugin" when the sepad plugin's copy of the hook wrote the
	// line (docs/claude-code.md, "Double installs").
	Via string `json:"via,omitempty"`
	// Plugin and PluginVersion name the Claude Code plugin whose prompt
	// SkillPath is (docs/claude-code.md, "Plugin skills"); Skill is then
	// PLUGIN:NAME even for a call by the bare NAME.
	Plugin        string `json:"plugin,omitempty"`
	PluginVersion string `json:"plugin_version,omitempty"`
	// PluginPrompts (SessionStart) is the version of every plugin prompt
	// file the session loaded, by path: Claude Code does not reload them
	// within a session.
	PluginPrompts map[string]string `json:"plugin_prompts,omitempty"`
}

// Instructions is sepa.instructions (docs/events.md, "Instruction files").
type Instructions struct {
	// Version is the first 12 hex digits of the sha256 of the manifest's
	// text (ManifestText).
	Version string            `json:"version,omitempty"`
	Files   []InstructionFile `json:"files,omitempty"`
}

// InstructionFile is one instruction file and the first 12 hex digits of
// the sha256 of its content ("" when the hook could not read it).
type InstructionFile struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
	// Link is "outside_project" for a project's file that leads out of
	// the project through a symbolic link: listed, never hashed.
	Link string `json:"link,omitempty"`
}

// Cut records one field shortened by the hook.
type Cut struct {
	Field  string `json:"field"`
	Len    int    `json:"len"`
	SHA256 string `json:"sha256"`
}

// Event is one decoded line. Fields absent from the line are zero.
type Event struct {
	Format    Format
	SessionID string
	HookEvent string
	// Time is sepa.ts, or the legacy line's ts; zero when the line has none.
	Time           time.Time
	Cwd            string
	TranscriptPath string
	ToolName       string
	ToolInput      json.RawMessage
	ToolResponse   json.RawMessage
	ToolUseID      string
	Error          string
	IsInterrupt    bool
	// DurationMS is the tool's own duration (PostToolUse*, >= 2.1.119).
	DurationMS  int64
	HasDuration bool
	Prompt      string
	LastMessage string // last_assistant_message
	AgentID     string
	AgentType   string
	CommandName string // UserPromptExpansion and PreSkillShellCommand command_name
	// InvokedBy is PreSkillShellCommand's invoked_by: user, claude or other.
	InvokedBy string
	// Reason is PermissionDenied's reason; Trigger is PreCompact's and
	// PostCompact's (manual or auto).
	Reason        string
	Trigger       string
	ExpansionType string
	PromptID      string
	// FilePath, MemoryType and LoadReason are InstructionsLoaded's.
	FilePath   string
	MemoryType string
	LoadReason string
	// Source is SessionStart's source (startup, resume, clear, compact).
	Source string
	// Sepa is the enrichment object, nil for raw payloads and legacy lines.
	Sepa *Sepa
	// Legacy holds the fields of an original SEPA hook line.
	Legacy *LegacyLine
}

// LegacyLine is a line of the original SEPA post-execution.sh hook.
type LegacyLine struct {
	TS      string `json:"ts"`
	Tool    string `json:"tool"`
	Exit    string `json:"exit"`
	Success string `json:"success"`
	Version string `json:"version"`
	Session string `json:"session"`
}

// OK reports whether the legacy line records a successful call.
func (l *LegacyLine) OK() bool {
	if l.Success != "" {
		s := strings.ToLower(strings.TrimSpace(l.Success))
		return s == "true" || s == "1" || s == "yes"
	}
	return strings.TrimSpace(l.Exit) == "0"
}

// payload lists the hook fields sepad reads. Others are ignored here but kept
// by whoever holds the raw line.
type payload struct {
	SessionID      *string `json:"session_id"`
	HookEventName  *string `json:"hook_event_name"`
	Cwd            string  `json:"cwd"`
	TranscriptPath string  `json:"transcript_path"`
	ToolName       string  `json:"tool_name"`
	ToolInput      rawRef  `json:"tool_input"`
	ToolResponse   rawRef  `json:"tool_response"`
	ToolUseID      string  `json:"tool_use_id"`
	Error          rawRef  `json:"error"`
	IsInterrupt    rawRef  `json:"is_interrupt"`
	DurationMS     rawRef  `json:"duration_ms"`
	Prompt         string  `json:"prompt"`
	LastMessage    string  `json:"last_assistant_message"`
	AgentID        string  `json:"agent_id"`
	AgentType      string  `json:"agent_type"`
	CommandName    string  `json:"command_name"`
	InvokedBy      string  `json:"invoked_by"`
	Reason         rawRef  `json:"reason"`
	Trigger        string  `json:"trigger"`
	ExpansionType  string  `json:"expansion_type"`
	PromptID       string  `json:"prompt_id"`
	FilePath       string  `json:"file_path"`
	MemoryType     string  `json:"memory_type"`
	LoadReason     string  `json:"load_reason"`
	Source         rawRef  `json:"source"`
	Sepa           *Sepa   `json:"sepa"`

	// legacy keys
	TS      *string `json:"ts"`
	Tool    *string `json:"tool"`
	Exit    *string `json:"exit"`
	Success *string `json:"success"`
	Version *string `json:"version"`
	Session *string `json:"session"`
}

// rawRef is a json.RawMessage that refers to the input instead of copying
// it: tool responses are most of a line's bytes, and the collector reads
// millions of lines.
type rawRef []byte

func (r *rawRef) UnmarshalJSON(b []byte) error {
	*r = b
	return nil
}

// ParseLine decodes one line (without its newline). The Event's ToolInput
// and ToolResponse refer to line's bytes: the caller must not reuse line
// while it keeps the Event. It never panics; every error wraps
// ErrMalformed and says why in a few words.
func ParseLine(line []byte) (Event, error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return Event{}, fmt.Errorf("%w: empty line", ErrMalformed)
	}
	if line[0] != '{' {
		return Event{}, fmt.Errorf("%w: not a JSON object", ErrMalformed)
	}
	var p payload
	if err := json.Unmarshal(line, &p); err != nil {
		return Event{}, fmt.Errorf("%w: invalid JSON: %s", ErrMalformed, shortErr(err))
	}
	if p.HookEventName == nil && p.SessionID == nil && p.Tool != nil {
		return parseLegacy(&p)
	}
	if p.Sepa != nil && p.Sepa.Quarantine != "" {
		return Event{Format: FormatEnriched, HookEvent: Quarantined, Sepa: p.Sepa, Time: p.Sepa.TS.UTC()},
			fmt.Errorf("%w: quarantined by hook: %s", ErrMalformed, p.Sepa.Quarantine)
	}
	if p.SessionID == nil || *p.SessionID == "" {
		return Event{}, fmt.Errorf("%w: missing session_id", ErrMalformed)
	}
	if p.HookEventName == nil || *p.HookEventName == "" {
		return Event{}, fmt.Errorf("%w: missing hook_event_name", ErrMalformed)
	}
	ev := Event{
		Format:         FormatHook,
		SessionID:      *p.SessionID,
		HookEvent:      *p.HookEventName,
		Cwd:            p.Cwd,
		TranscriptPath: p.TranscriptPath,
		ToolName:       p.ToolName,
		ToolInput:      nullToNil(json.RawMessage(p.ToolInput)),
		ToolResponse:   nullToNil(json.RawMessage(p.ToolResponse)),
		ToolUseID:      p.ToolUseID,
		Error:          looseString(json.RawMessage(p.Error)),
		IsInterrupt:    looseBool(json.RawMessage(p.IsInterrupt)),
		Prompt:         p.Prompt,
		LastMessage:    p.LastMessage,
		AgentID:        p.AgentID,
		AgentType:      p.AgentType,
		CommandName:    p.CommandName,
		InvokedBy:      p.InvokedBy,
		Reason:         looseString(json.RawMessage(p.Reason)),
		Trigger:        p.Trigger,
		ExpansionType:  p.ExpansionType,
		PromptID:       p.PromptID,
		FilePath:       p.FilePath,
		MemoryType:     p.MemoryType,
		LoadReason:     p.LoadReason,
		Source:         looseString(json.RawMessage(p.Source)),
	}
	if d, ok := looseInt(json.RawMessage(p.DurationMS)); ok {
		ev.DurationMS, ev.HasDuration = d, true
	}
	if p.Sepa != nil {
		ev.Format = FormatEnriched
		ev.Sepa = p.Sepa
		if !p.Sepa.TS.IsZero() {
			ev.Time = p.Sepa.TS.UTC()
		}
		if p.Sepa.V > SchemaVersion {
			return Event{}, fmt.Errorf("%w: sepa schema v%d is newer than this sepad (v%d)", ErrMalformed, p.Sepa.V, SchemaVersion)
		}
	}
	if err := checkIdentities(&ev); err != nil {
		return Event{}, err
	}
	return ev, nil
}

// checkIdentities refuses an event with a field over MaxIdentity.
func checkIdentities(ev *Event) error {
	fields := [...]struct{ name, v string }{
		{"session_id", ev.SessionID}, {"hook_event_name", ev.HookEvent}, {"cwd", ev.Cwd},
		{"agent_id", ev.AgentID}, {"agent_type", ev.AgentType}, {"transcript_path", ev.TranscriptPath},
		{"prompt_id", ev.PromptID}, {"tool_use_id", ev.ToolUseID}, {"file_path", ev.FilePath},
	}
	for _, f := range fields {
		if len(f.v) > MaxIdentity {
			return tooLong(f.name, len(f.v))
		}
	}
	if s := ev.Sepa; s != nil {
		sepa := [...]struct{ name, v string }{
			{"sepa.skill", s.Skill}, {"sepa.skill_path", s.SkillPath}, {"sepa.skill_version", s.SkillVersion},
			{"sepa.project", s.Project}, {"sepa.plugin", s.Plugin}, {"sepa.plugin_version", s.PluginVersion},
		}
		for _, f := range sepa {
			if len(f.v) > MaxIdentity {
				return tooLong(f.name, len(f.v))
			}
		}
	}
	return nil
}

func tooLong(field string, n int) error {
	return fmt.Errorf("%w: %s of %d bytes is over the %d bytes an identity may have", ErrMalformed, field, n, MaxIdentity)
}

func parseLegacy(p *payload) (Event, error) {
	l := &LegacyLine{Tool: deref(p.Tool), Exit: deref(p.Exit), Success: deref(p.Success),
		Version: deref(p.Version), Session: deref(p.Session), TS: deref(p.TS)}
	if l.Session == "" {
		return Event{}, fmt.Errorf("%w: legacy line without session", ErrMalformed)
	}
	if len(l.Session) > MaxIdentity {
		return Event{}, tooLong("session", len(l.Session))
	}
	ev := Event{Format: FormatLegacy, SessionID: l.Session, HookEvent: Legacy, ToolName: l.Tool, Legacy: l}
	if l.TS != "" {
		t, err := parseTime(l.TS)
		if err != nil {
			return Event{}, fmt.Errorf("%w: legacy ts %q: not a time", ErrMalformed, truncate(l.TS, 40))
		}
		ev.Time = t
	}
	if !l.OK() {
		ev.Error = "exit " + l.Exit
	}
	return ev, nil
}

// parseTime accepts RFC 3339 (with or without fractional seconds) and Unix
// seconds, the forms seen in SEPA logs.
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 && f < 1e11 {
		sec := int64(f)
		return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC(), nil
	}
	return time.Time{}, errors.New("bad time")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func nullToNil(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || string(r) == "null" {
		return nil
	}
	return r
}

// looseString reads a JSON string; other JSON values are kept as their text,
// since some versions send an object for error.
func looseString(r json.RawMessage) string {
	r = nullToNil(r)
	if r == nil {
		return ""
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s
	}
	return string(r)
}

func looseBool(r json.RawMessage) bool {
	r = nullToNil(r)
	if r == nil {
		return false // absent from most lines: no decoding, no error to build
	}
	var b bool
	if json.Unmarshal(r, &b) == nil {
		return b
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		return s == "true"
	}
	return false
}

func looseInt(r json.RawMessage) (int64, bool) {
	r = nullToNil(r)
	if r == nil {
		return 0, false
	}
	var f float64
	if json.Unmarshal(r, &f) == nil && f >= 0 && f < 1e15 {
		return int64(f), true
	}
	var s string
	if json.Unmarshal(r, &s) == nil {
		if f, err := strconv.ParseFloat(s, 64); err == nil && f >= 0 && f < 1e15 {
			return int64(f), true
		}
	}
	return 0, false
}

func shortErr(err error) string { return truncate(err.Error(), 120) }

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// SkillInvocation reports the skill an event invokes, if any: a Skill tool
// call (tool_input.skill, older tool_input.command), a user-typed /name in a
// UserPromptSubmit, or a UserPromptExpansion's command_name. ok is false for
// events that invoke nothing. Agent/Task calls are not skill invocations of
// the calling thread (the subagent's own events form its execution).
func (e *Event) SkillInvocation() (name string, ok bool) {
	switch e.HookEvent {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		if e.ToolName != "Skill" {
			return "", false
		}
		var in struct {
			Skill   string `json:"skill"`
			Command string `json:"command"`
		}
		if json.Unmarshal(e.ToolInput, &in) != nil {
			return "", false
		}
		n := in.Skill
		if n == "" {
			n = in.Command
		}
		n = strings.TrimPrefix(strings.TrimSpace(n), "/")
		return n, n != ""
	case UserPromptSubmit:
		return SlashCommand(e.Prompt)
	case UserPromptExpansion:
		n := strings.TrimPrefix(strings.TrimSpace(e.CommandName), "/")
		return n, n != ""
	}
	return "", false
}

// SlashCommand extracts name from a prompt of the form "/name args".
// Built-in-looking prompts such as "/ path" or "//x" are not commands.
func SlashCommand(prompt string) (string, bool) {
	p := strings.TrimLeft(prompt, " \t\r\n")
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	p = p[1:]
	end := strings.IndexAny(p, " \t\r\n")
	if end >= 0 {
		p = p[:end]
	}
	if p == "" {
		return "", false
	}
	for _, r := range p {
		if !(r == '-' || r == '_' || r == ':' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return "", false
		}
	}
	return p, true
}

// IsTool reports whether the event is about a tool call.
func (e *Event) IsTool() bool {
	switch e.HookEvent {
	case PreToolUse, PostToolUse, PostToolUseFailure, Legacy:
		return true
	}
	return false
}
