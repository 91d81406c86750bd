package execution

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sepad/sepad/event"
)

// Options tune a Grouper.
type Options struct {
	// ProjectOf maps a cwd to its project directory (the repo root when it
	// can be found). Nil means the cwd itself. Events enriched by the hook
	// carry sepa.project, which wins.
	ProjectOf func(cwd string) string
	// MaxResponse bounds the tool_response text kept per call as evidence
	// for error patterns. Zero means 2048 bytes.
	MaxResponse int
}

// Grouper turns a stream of events into executions. It is not safe for
// concurrent use. Its state is a set of threads (one per session, and one per
// subagent), each of which can be saved with Dirty and restored with Restore.
type Grouper struct {
	opts    Options
	threads map[string]*thread
	dirty   map[string]bool
}

// thread is the state of one session's main thread or one subagent.
type thread struct {
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	// AgentType is the subagent's definition name.
	AgentType string `json:"agent_type,omitempty"`
	// Project of the thread, from the latest event that told it.
	Project string `json:"project,omitempty"`
	// Seq numbers the executions started in this thread, for stable IDs.
	Seq int `json:"seq"`
	// Parts are the executions of the current turn, oldest first; the last
	// one receives new tool calls.
	Parts []*Execution `json:"parts,omitempty"`
	// Pending is the last execution of the previous turn, held until the
	// next prompt tells whether the user corrected it.
	Pending *Execution `json:"pending,omitempty"`
	// Last is the time of the newest event.
	Last time.Time `json:"last,omitempty"`
	// Seen is when the newest event was received (AddAt), for idle
	// timeouts of events that carry no time of their own.
	Seen time.Time `json:"seen,omitempty"`
	// PromptID is the prompt_id of the open turn (Claude Code >= 2.1.196):
	// a UserPromptSubmit with the same id is a message typed while Claude
	// works, which continues the turn.
	PromptID string `json:"prompt_id,omitempty"`
	// Started is true once a SubagentStart was seen for this subagent:
	// Claude Code's internal agents (compaction) have none and no type.
	Started bool `json:"started,omitempty"`
	// Fork is the ID of the main thread's execution whose `context: fork`
	// skill this subagent runs: its calls are charged to that execution.
	Fork string `json:"fork,omitempty"`
	// Instructions is the session's manifest from its latest SessionStart
	// (main thread); Loaded the instruction files loaded while no part
	// was open (instructions.go).
	Instructions *Manifest    `json:"instructions,omitempty"`
	Loaded       []LoadedFile `json:"loaded,omitempty"`
	// PluginPrompts is the version of each plugin prompt file when the
	// session loaded it (its SessionStart, main thread): a plugin
	// prompt's executions are charged to it.
	PluginPrompts map[string]string `json:"plugin_prompts,omitempty"`
}

// NewGrouper returns an empty Grouper.
func NewGrouper(o Options) *Grouper {
	if o.MaxResponse == 0 {
		o.MaxResponse = 2048
	}
	return &Grouper{opts: o, threads: map[string]*thread{}, dirty: map[string]bool{}}
}

// threadKey identifies a thread: session, plus agent id for subagents.
func threadKey(session, agent string) string {
	if agent == "" {
		return session
	}
	return session + "/" + agent
}

// Add feeds one event and returns the executions it closed, oldest first.
// Events with a zero Time are accepted; durations then come from the tools'
// duration_ms.
func (g *Grouper) Add(ev *event.Event) []Execution { return g.AddAt(ev, ev.Time) }

// AddAt is Add for an event received at recv: recv only drives idle
// timeouts (CloseIdle), never the execution's own times, so replaying the
// same lines gives the same executions whenever they are read.
func (g *Grouper) AddAt(ev *event.Event, recv time.Time) []Execution {
	if ev.HookEvent == event.Quarantined || ev.SessionID == "" {
		return nil
	}
	key := threadKey(ev.SessionID, ev.AgentID)
	t := g.threads[key]
	if t == nil {
		t = &thread{Session: ev.SessionID, Agent: ev.AgentID, AgentType: ev.AgentType}
		g.threads[key] = t
	}
	g.dirty[key] = true
	if p := g.project(ev); p != "" {
		t.Project = p
	}
	if t.AgentType == "" && ev.AgentType != "" {
		t.AgentType = ev.AgentType
	}
	if !ev.Time.IsZero() && ev.Time.After(t.Last) {
		t.Last = ev.Time
	}
	if recv.After(t.Seen) {
		t.Seen = recv
	}
	var out []Execution
	switch ev.HookEvent {
	case event.UserPromptSubmit:
		if t.Agent == "" {
			if IsTaskNotification(ev.Prompt) {
				// Claude Code telling the model a background task ended:
				// not a user's prompt. The work it prompts continues the
				// open turn, or the execution held from the last one.
				g.continueTurn(t, ev)
				break
			}
			if len(t.Parts) > 0 && ev.PromptID != "" && ev.PromptID == t.PromptID {
				// A message typed while Claude works: the same turn goes on.
				cur := t.current()
				if IsCorrection(ev.Prompt) {
					cur.Corrections++
				}
				g.touch(cur, ev)
				break
			}
			// A turn still open here was interrupted (no Stop fires then).
			out = append(out, g.endTurn(t, ev, false)...)
			out = append(out, g.takePending(t, ev.Prompt)...)
			t.PromptID = ev.PromptID
			name, isSkill := g.invokes(ev)
			if isSkill {
				g.startPart(t, ev, name, "skill", strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ev.Prompt), "/"+name)))
			} else {
				g.startPart(t, ev, SessionSkill, "session", ev.Prompt)
			}
		}
	case event.UserPromptExpansion:
		name, ok := g.invokes(ev)
		if !ok {
			break
		}
		cur := t.current()
		if cur != nil && cur.Skill == name && len(cur.Calls) == 0 {
			g.attribute(cur, ev, name) // same invocation seen by UserPromptSubmit
			break
		}
		if cur != nil && len(t.Parts) == 1 && cur.Kind == "session" && len(cur.Calls) == 0 && !cur.HasOutput &&
			ev.PromptID != "" && ev.PromptID == t.PromptID {
			// The prompt's own part, which its UserPromptSubmit could not
			// tell was a skill (`/apps/web:deploy`: a name with a '/'):
			// it is the skill's from its start.
			cur.Skill, cur.Kind, cur.SkillVersion, cur.Instructions = name, "skill", "", nil
			g.attribute(cur, ev, name)
			g.touch(cur, ev)
			break
		}
		if t.Agent == "" && ev.PromptID != "" && ev.PromptID != t.PromptID {
			// The expansion of a new prompt, before its UserPromptSubmit
			// (2.1.197 sends them in this order): it starts the turn as
			// the prompt would, and the UserPromptSubmit with the same
			// prompt_id then continues it.
			out = append(out, g.endTurn(t, ev, false)...)
			out = append(out, g.takePending(t, ev.Prompt)...)
			t.PromptID = ev.PromptID
		}
		g.startPart(t, ev, name, "skill", ev.Prompt)
	case event.PreToolUse, event.PostToolUse, event.PostToolUseFailure, event.Legacy:
		g.toolEvent(t, ev)
	case event.Stop, event.StopFailure, event.SubagentStop:
		if ev.HookEvent == event.SubagentStop && t.Agent == "" {
			// Without agent_id (old versions) a SubagentStop says nothing
			// about the main thread's turn.
			break
		}
		if t.Fork != "" {
			// The forked skill's subagent is done; its answer goes back
			// to the main thread, whose Stop gives the final output.
			if x := g.forkTarget(t); x != nil {
				g.touch(x, ev)
			}
			delete(g.threads, key)
			break
		}
		cur := t.current()
		if cur == nil {
			cur = g.startPart(t, ev, g.baseSkill(t), g.baseKind(t), "")
		}
		if ev.HookEvent == event.StopFailure {
			// last_assistant_message is Claude Code's own error text
			// ("API Error: 400 …"), not the model's answer.
			cur.StopError = ev.Error
			if cur.StopError == "" {
				cur.StopError = "stop_failure"
			}
		} else if ev.LastMessage != "" {
			cur.Output, cur.HasOutput = ev.LastMessage, true
		}
		g.touch(cur, ev)
		if t.Agent != "" && !t.Started && t.AgentType == "" {
			// Claude Code's internal agents (compaction) have no
			// SubagentStart and no type: not a prompt of the user's.
			t.Parts = nil
		}
		out = append(out, g.endTurn(t, ev, true)...)
		t.PromptID = ""
		if t.Agent != "" {
			// A subagent ends with its SubagentStop: nobody corrects it.
			out = append(out, g.takePending(t, "")...)
			delete(g.threads, key)
		}
	case event.SubagentStart:
		if t.Agent != "" {
			t.Started = true
			if t.current() == nil && t.Fork == "" {
				if x := g.forkOf(t); x != nil {
					linkFork(t, x)
					break
				}
				g.startPart(t, ev, g.baseSkill(t), "agent", "")
			}
		}
	case event.SessionStart:
		g.sessionStart(t, ev)
	case event.InstructionsLoaded:
		g.instructionsLoaded(t, ev)
	case event.SessionEnd:
		// A turn still open here was cut short (Ctrl-C, a killed
		// process): incomplete, and it lasted until now.
		if cur := t.current(); cur != nil {
			g.touch(cur, ev)
		}
		out = append(out, g.endTurn(t, ev, false)...)
		out = append(out, g.takePending(t, "")...)
		// Close the session's subagents too.
		for _, k := range g.sortedKeys() {
			st := g.threads[k]
			if st.Session == t.Session && st.Agent != "" {
				out = append(out, g.endTurn(st, ev, false)...)
				out = append(out, g.takePending(st, "")...)
				delete(g.threads, k)
				g.dirty[k] = true
			}
		}
		delete(g.threads, key)
	}
	return out
}

// toolEvent records a tool event in the current part, splitting the turn
// when the call invokes a skill.
func (g *Grouper) toolEvent(t *thread, ev *event.Event) {
	if ev.HookEvent == event.Legacy {
		g.legacyEvent(t, ev)
		return
	}
	// A post event for a call we already know.
	if ev.ToolUseID != "" {
		c, x := t.findCall(ev.ToolUseID)
		if c == nil && t.Fork != "" {
			if fx := g.forkTarget(t); fx != nil {
				c, x = fx.findCall(ev.ToolUseID), fx
			}
		}
		if c != nil {
			if ev.HookEvent == event.PreToolUse {
				return // duplicate delivery: deduplicate on tool_use_id
			}
			g.finishCall(c, ev)
			g.touch(x, ev)
			return
		}
	}
	if name, ok := g.invokes(ev); ok && t.Agent == "" {
		g.startPart(t, ev, name, "skill", skillArgs(ev.ToolInput))
	}
	if t.Agent != "" && t.Fork == "" && t.current() == nil {
		if x := g.forkOf(t); x != nil {
			linkFork(t, x)
		}
	}
	var cur *Execution
	if t.Fork != "" {
		if cur = g.forkTarget(t); cur == nil {
			t.Fork = "" // the skill's execution closed: the agent's own
		}
	}
	if cur == nil {
		cur = t.current()
	}
	if cur == nil {
		cur = g.startPart(t, ev, g.baseSkill(t), g.baseKind(t), "")
	}
	c := ToolCall{ID: ev.ToolUseID, Name: ev.ToolName, InputHash: inputHash(ev.ToolInput), Start: ev.Time,
		Kind: CommandKind(ev.ToolName, ev.ToolInput)}
	if ev.HookEvent == event.PreToolUse {
		c.NoPost = true // until a post event arrives
	} else {
		g.finishCall(&c, ev)
	}
	g.markRetry(cur, &c)
	cur.Calls = append(cur.Calls, c)
	g.touch(cur, ev)
}

// legacyEvent records a line of the original SEPA hook: a finished call of
// the session's base prompt at the version the line names. A version change
// starts a new execution.
func (g *Grouper) legacyEvent(t *thread, ev *event.Event) {
	cur := t.current()
	if cur == nil || cur.SkillVersion != ev.Legacy.Version {
		cur = g.startPart(t, ev, SessionSkill, "session", "")
		cur.SkillVersion = ev.Legacy.Version
	}
	c := ToolCall{Name: ev.ToolName, Start: ev.Time, End: ev.Time, Done: true}
	if !ev.Legacy.OK() {
		c.Failed = true
		c.Error = "exit " + ev.Legacy.Exit
	}
	cur.Calls = append(cur.Calls, c)
	g.touch(cur, ev)
}

func (g *Grouper) finishCall(c *ToolCall, ev *event.Event) {
	c.Done, c.NoPost = true, false
	if !ev.Time.IsZero() {
		c.End = ev.Time
	}
	if ev.HasDuration {
		c.DurationMS, c.HasDuration = ev.DurationMS, true
	}
	if ev.HookEvent == event.PostToolUseFailure {
		c.Failed = true
		c.Error = ev.Error
	}
	if ev.IsInterrupt {
		c.Interrupted = true
	}
	if ev.HookEvent == event.PostToolUse && len(ev.ToolResponse) > 0 && mayHoldError(ev.ToolResponse) {
		c.Response = responseText(ev.ToolResponse, g.opts.MaxResponse)
	}
}

// markRetry flags c as a retry when an earlier failed call of the same
// execution had the same tool and input.
//
// A rerun after a change is verification, not a retry: an earlier failure
// counts only when no call that changes files (Edit, Write, MultiEdit,
// NotebookEdit) succeeded after it. The fix loop (test fails, edit, test
// passes) has no retry; running the same failing command twice does.
func (g *Grouper) markRetry(x *Execution, c *ToolCall) {
	if c.InputHash == "" {
		return
	}
	for i := len(x.Calls) - 1; i >= 0; i-- {
		p := &x.Calls[i]
		if changesFiles(p.Name) && !p.Failed && !p.Interrupted {
			return
		}
		if p.Name == c.Name && p.InputHash == c.InputHash && (p.Failed || p.Interrupted) {
			c.Retry = true
			return
		}
	}
}

// changesFiles reports whether a tool edits files: a call of it after a
// failure makes a rerun of the failed call a verification.
func changesFiles(tool string) bool {
	switch tool {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}

// startPart opens a new execution in the thread's current turn.
func (g *Grouper) startPart(t *thread, ev *event.Event, skill, kind, prompt string) *Execution {
	t.Seq++
	x := &Execution{
		ID:        execID(t.Session, t.Agent, t.Seq, ev),
		SessionID: t.Session,
		AgentID:   t.Agent,
		Skill:     skill,
		Kind:      kind,
		Project:   t.Project,
		Prompt:    prompt,
		StartedAt: ev.Time,
	}
	if kind != "session" {
		g.attribute(x, ev, skill)
	}
	g.sessionVersion(t, x)
	t.Parts = append(t.Parts, x)
	return x
}

// attribute copies the hook's resolution of the skill's prompt file.
func (g *Grouper) attribute(x *Execution, ev *event.Event, skill string) {
	if ev.Sepa == nil || ev.Sepa.Skill != skill {
		return
	}
	if ev.Sepa.SkillPath != "" {
		x.SkillPath = ev.Sepa.SkillPath
	}
	if ev.Sepa.SkillVersion != "" {
		x.SkillVersion = ev.Sepa.SkillVersion
	}
	if ev.Sepa.Plugin != "" {
		x.Plugin, x.PluginVersion = ev.Sepa.Plugin, ev.Sepa.PluginVersion
		// Claude Code does not reload a plugin's prompts within a
		// session: the version is the content at the session's start.
		if main := g.threads[ev.SessionID]; main != nil {
			if v := main.PluginPrompts[x.SkillPath]; v != "" {
				x.SkillVersion = v
			}
		}
	}
}

func (g *Grouper) touch(x *Execution, ev *event.Event) {
	x.Events++
	if ev.TranscriptPath != "" {
		x.TranscriptPath = ev.TranscriptPath
	}
	if !ev.Time.IsZero() {
		if x.StartedAt.IsZero() || ev.Time.Before(x.StartedAt) {
			x.StartedAt = ev.Time
		}
		if ev.Time.After(x.EndedAt) {
			x.EndedAt = ev.Time
		}
		if ev.Time.After(x.LastEvent) {
			x.LastEvent = ev.Time
		}
	}
}

// endTurn closes the thread's turn: unanswered PreToolUse calls become
// failures, empty parts are dropped, the last part is held as Pending (main
// thread) so a following correction can be counted, and the others are
// returned.
func (g *Grouper) endTurn(t *thread, ev *event.Event, complete bool) []Execution {
	if len(t.Parts) == 0 {
		return nil
	}
	var out []Execution
	parts := t.Parts
	t.Parts = nil
	for i, x := range parts {
		for j := range x.Calls {
			if !x.Calls[j].Done {
				x.Calls[j].NoPost = true
			}
		}
		x.Complete = complete
		if len(x.Calls) == 0 && !x.HasOutput {
			continue // nothing happened: not an execution
		}
		if i == len(parts)-1 && t.Agent == "" && complete {
			out = append(out, g.takePending(t, "")...)
			t.Pending = x
			continue
		}
		out = append(out, *x)
	}
	return out
}

// takePending releases the held execution, counting prompt as a correction
// when it rejects or reverts the held answer.
func (g *Grouper) takePending(t *thread, prompt string) []Execution {
	if t.Pending == nil {
		return nil
	}
	x := *t.Pending
	t.Pending = nil
	if prompt != "" && IsCorrection(prompt) {
		x.Corrections++
	}
	return []Execution{x}
}

// Flush closes every thread (end of input) and returns their executions.
// Executions of turns that never ended are marked incomplete.
func (g *Grouper) Flush() []Execution {
	var out []Execution
	for _, k := range g.sortedKeys() {
		t := g.threads[k]
		out = append(out, g.endTurn(t, &event.Event{}, false)...)
		out = append(out, g.takePending(t, "")...)
		delete(g.threads, k)
		g.dirty[k] = true
	}
	return out
}

// CloseIdle closes the threads whose newest event was received before
// now-idle, as Flush does for all of them.
func (g *Grouper) CloseIdle(now time.Time, idle time.Duration) []Execution {
	var out []Execution
	for _, k := range g.sortedKeys() {
		t := g.threads[k]
		if t.Seen.IsZero() || now.Sub(t.Seen) < idle {
			continue
		}
		out = append(out, g.endTurn(t, &event.Event{}, false)...)
		out = append(out, g.takePending(t, "")...)
		delete(g.threads, k)
		g.dirty[k] = true
	}
	return out
}

// Open reports how many threads hold an open or pending execution.
func (g *Grouper) Open() int { return len(g.threads) }

// Dirty returns the threads changed since the last call, encoded, and the
// keys of threads that ended: what a store must save so that a restart
// resumes exactly here.
func (g *Grouper) Dirty() (put map[string][]byte, del []string) {
	put = map[string][]byte{}
	for k := range g.dirty {
		t, ok := g.threads[k]
		if !ok {
			del = append(del, k)
			continue
		}
		b, err := json.Marshal(t)
		if err != nil {
			// A thread holds only JSON-safe values; this cannot happen.
			panic(fmt.Sprintf("execution: encode thread %s: %v", k, err))
		}
		put[k] = b
	}
	sort.Strings(del)
	g.dirty = map[string]bool{}
	return put, del
}

// Restore loads threads saved with Dirty.
func (g *Grouper) Restore(saved map[string][]byte) error {
	for k, b := range saved {
		var t thread
		if err := json.Unmarshal(b, &t); err != nil {
			return fmt.Errorf("restore open execution %s: %w", k, err)
		}
		g.threads[k] = &t
	}
	return nil
}

func (g *Grouper) sortedKeys() []string {
	keys := make([]string, 0, len(g.threads))
	for k := range g.threads {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (g *Grouper) project(ev *event.Event) string {
	if ev.Sepa != nil && ev.Sepa.Project != "" {
		return ev.Sepa.Project
	}
	if ev.Cwd == "" {
		return ""
	}
	if g.opts.ProjectOf != nil {
		return g.opts.ProjectOf(ev.Cwd)
	}
	return ev.Cwd
}

func (g *Grouper) baseSkill(t *thread) string {
	if t.Agent != "" {
		if t.AgentType != "" {
			return t.AgentType
		}
		return "_agent"
	}
	return SessionSkill
}

func (g *Grouper) baseKind(t *thread) string {
	if t.Agent != "" {
		return "agent"
	}
	return "session"
}

func (t *thread) current() *Execution {
	if len(t.Parts) == 0 {
		return nil
	}
	return t.Parts[len(t.Parts)-1]
}

// findCall finds a call of x by tool_use_id.
func (x *Execution) findCall(id string) *ToolCall {
	for j := range x.Calls {
		if x.Calls[j].ID == id {
			return &x.Calls[j]
		}
	}
	return nil
}

// findCall finds a call of the current turn by tool_use_id.
func (t *thread) findCall(id string) (*ToolCall, *Execution) {
	for i := len(t.Parts) - 1; i >= 0; i-- {
		x := t.Parts[i]
		for j := range x.Calls {
			if x.Calls[j].ID == id {
				return &x.Calls[j], x
			}
		}
	}
	return nil, nil
}

// execID is a short stable identifier: the same events give the same IDs,
// however they were read. A session can go on after its SessionEnd
// (--resume, --continue) or after the idle timeout with the same
// session_id, and the daemon numbers its parts from 1 again then while an
// uninterrupted reading does not: so an execution started by an event with
// its own time (sepa.ts, nanoseconds) is named by that time, and only
// events without one (raw payloads, the original SEPA hook's lines, whose
// times are seconds) fall back to the part's number and prompt_id.
func execID(session, agent string, seq int, ev *event.Event) string {
	key := strconv.Itoa(seq) + "\x00" + ev.PromptID
	if !ev.Time.IsZero() && ev.Format != event.FormatLegacy {
		key = "t\x00" + ev.Time.UTC().Format(time.RFC3339Nano)
	}
	h := sha256.Sum256([]byte(session + "\x00" + agent + "\x00" + key))
	return hex.EncodeToString(h[:6])
}

// inputHash identifies a tool input: the first 16 hex digits of the sha256
// of its compacted JSON ("" for no input).
func inputHash(r json.RawMessage) string {
	c := compact(r)
	if len(c) == 0 {
		return ""
	}
	h := sha256.Sum256(c)
	return hex.EncodeToString(h[:8])
}

// errorHints are substrings without which a tool response cannot match
// any error pattern of the rubric; responses without them are not kept.
var errorHints = [][]byte{[]byte("rror"), []byte("ERROR"), []byte("denied"), []byte("not found"), []byte("panic"),
	[]byte("Traceback"), []byte("fault"), []byte("fatal"), []byte("FAIL"), []byte("xception"), []byte("failed"), []byte("unable")}

func mayHoldError(r json.RawMessage) bool {
	for _, h := range errorHints {
		if bytes.Contains(r, h) {
			return true
		}
	}
	return false
}

// compact canonicalises a tool input so retries compare equal however the
// payload was spaced, and so saved state compares equal to live state.
func compact(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, r) != nil {
		return r
	}
	return b.Bytes()
}

func skillArgs(input json.RawMessage) string {
	var in struct {
		Args string `json:"args"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Args
}

// responseText extracts a bounded text from a tool_response: a JSON string,
// the stdout/stderr of Bash, or the raw JSON otherwise.
func responseText(r json.RawMessage, max int) string {
	var s string
	if json.Unmarshal(r, &s) != nil {
		var b struct {
			Stdout string `json:"stdout"`
			Stderr string `json:"stderr"`
		}
		if json.Unmarshal(r, &b) == nil && (b.Stdout != "" || b.Stderr != "") {
			s = b.Stdout + "\n" + b.Stderr
		} else {
			s = string(r)
		}
	}
	if len(s) > max {
		s = s[:max]
	}
	return strings.ToValidUTF8(s, "")
}

// correctionRE matches prompts that reject or revert the previous answer.
// The patterns are listed and explained in docs/executions.md.
var correctionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(no[,.!\s]|nope\b|wrong\b|that'?s (wrong|not (it|right|what i (asked|wanted)))|this is (wrong|not what i)|not what i (asked|wanted|meant)|undo\b|revert\b|roll ?back\b|that (didn'?t|does ?n'?t|did not|does not) work|it (didn'?t|does ?n'?t|did not|does not) work|still (broken|failing|wrong|not working)|you (broke|missed|forgot|ignored)\b|stop\b|don'?t do that)`)
})

// IsCorrection reports whether a user prompt rejects or reverts the previous
// answer: it starts with a refusal or a revert request.
func IsCorrection(prompt string) bool {
	if len(prompt) > 4096 {
		prompt = prompt[:4096]
	}
	return correctionRE().MatchString(prompt)
}

// IsTaskNotification reports whether a UserPromptSubmit's prompt is Claude
// Code's notice that a background task (a background agent) finished,
// which it sends as a prompt: not a user's prompt.
func IsTaskNotification(prompt string) bool {
	return strings.HasPrefix(strings.TrimSpace(prompt), "<task-notification>")
}

// continueTurn charges a turn that no user started (a task notification)
// to the open turn, else to the execution held from the previous turn.
func (g *Grouper) continueTurn(t *thread, ev *event.Event) {
	t.PromptID = ev.PromptID
	if cur := t.current(); cur != nil {
		g.touch(cur, ev)
		return
	}
	if t.Pending != nil {
		t.Parts = []*Execution{t.Pending}
		t.Pending = nil
		g.touch(t.Parts[0], ev)
		return
	}
	g.startPart(t, ev, g.baseSkill(t), g.baseKind(t), "")
}

// invokes reports the skill an event invokes, as SkillInvocation does,
// except that a skill the hook looked for and found no prompt file of (a
// built-in such as /compact or a bundled skill) is not a graded skill: its
// work stays with the execution that called it. Plugin skills
// ("plugin:skill") keep their name.
func (g *Grouper) invokes(ev *event.Event) (string, bool) {
	name, ok := ev.SkillInvocation()
	if !ok {
		return "", false
	}
	if ev.Sepa != nil && ev.Sepa.SkillPath == "" && !strings.Contains(name, ":") {
		return "", false
	}
	if ev.Sepa != nil && ev.Sepa.Plugin != "" && ev.Sepa.Skill == ev.Sepa.Plugin+":"+name {
		// A bare name the hook resolved to a plugin's prompt.
		return ev.Sepa.Skill, true
	}
	return name, true
}

// forkOf finds the main thread's execution whose skill runs in the
// subagent t (`context: fork`): a Skill call still waiting for its result
// when the subagent starts, with no Agent or Task call waiting beside it
// (a Skill call otherwise returns at once, after loading the skill).
func (g *Grouper) forkOf(t *thread) *Execution {
	main := g.threads[t.Session]
	if main == nil || t.Agent == "" {
		return nil
	}
	var skill *Execution
	for _, x := range main.Parts {
		for i := range x.Calls {
			c := &x.Calls[i]
			if c.Done {
				continue
			}
			switch c.Name {
			case "Agent", "Task":
				return nil
			case "Skill":
				skill = x
			}
		}
	}
	return skill
}

// linkFork charges the subagent t's work to x, the execution of the
// skill it runs (`context: fork`).
func linkFork(t *thread, x *Execution) {
	t.Fork = x.ID
	if !slices.Contains(x.ForkAgents, t.Agent) {
		x.ForkAgents = append(x.ForkAgents, t.Agent)
	}
}

// forkTarget returns the main thread's execution a fork subagent works
// for, marking the main thread changed; nil when it has closed.
func (g *Grouper) forkTarget(t *thread) *Execution {
	main := g.threads[t.Session]
	if main == nil {
		return nil
	}
	for _, x := range main.Parts {
		if x.ID == t.Fork {
			g.dirty[t.Session] = true
			return x
		}
	}
	if main.Pending != nil && main.Pending.ID == t.Fork {
		g.dirty[t.Session] = true
		return main.Pending
	}
	return nil
}
