package execution

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
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
	// ended and endedDirty are the numbering of ended threads
	// (numbering.go).
	ended      map[string]int
	endedDirty map[string]bool
	// own counts the executions of sepad's own commands left out (own.go).
	own int
}

// thread is the state of one session's main thread or one subagent.
type thread struct {
	Session string `json:"session"`
	Agent   string `json:"agent,omitempty"`
	// AgentType is the subagent's definition name.
	AgentType string `json:"agent_type,omitempty"`
	// Project of the thread, from the latest event that told it.
	Project string `json:"project,omitempty"`
	// Seq numbers the executions started in this thread, for stable IDs;
	// a thread that ends and comes back goes on numbering (numbering.go).
	Seq int `json:"seq"`
	// Numbered is set once an execution of the thread was named by its
	// number (an event without its own time): the number must then
	// outlive the thread.
	Numbered bool `json:"numbered,omitempty"`
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
	// Turned is set once a turn of the main thread ended; PrevSkills
	// are the skills that turn used (activation.go).
	Turned     bool     `json:"turned,omitempty"`
	PrevSkills []string `json:"prev_skills,omitempty"`
}

// NewGrouper returns an empty Grouper.
func NewGrouper(o Options) *Grouper {
	if o.MaxResponse == 0 {
		o.MaxResponse = 2048
	}
	return &Grouper{opts: o, threads: map[string]*thread{}, dirty: map[string]bool{}, ended: map[string]int{}, endedDirty: map[string]bool{}}
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
	return g.keep(g.addAt(ev, recv))
}

func (g *Grouper) addAt(ev *event.Event, recv time.Time) []Execution {
	if ev.HookEvent == event.Quarantined || ev.SessionID == "" {
		return nil
	}
	key := threadKey(ev.SessionID, ev.AgentID)
	t := g.threads[key]
	if t == nil {
		t = &thread{Session: ev.SessionID, Agent: ev.AgentID, AgentType: ev.AgentType, Seq: g.ended[key]}
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
				recordVerdict(cur, ReadVerdict(ev.Prompt), ev)
				g.touch(cur, ev)
				break
			}
			// A turn still open here was interrupted (no Stop fires then).
			name, isSkill := g.invokes(ev)
			closed, repaired := g.answer(t, ev, g.endTurn(t, ev, false), isSkill)
			out = append(out, closed...)
			t.PromptID = ev.PromptID
			if repaired {
				break
			}
			if isSkill {
				typed(t, g.startPart(t, ev, name, "skill", strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ev.Prompt), "/"+name))))
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
			typed(t, cur)
			g.attribute(cur, ev, name)
			g.touch(cur, ev)
			break
		}
		if t.Agent == "" && ev.PromptID != "" && ev.PromptID != t.PromptID {
			// The expansion of a new prompt, before its UserPromptSubmit
			// (2.1.197 sends them in this order): it starts the turn as
			// the prompt would, and the UserPromptSubmit with the same
			// prompt_id then continues it.
			closed, _ := g.answer(t, ev, g.endTurn(t, ev, false), true)
			out = append(out, closed...)
			t.PromptID = ev.PromptID
		}
		typed(t, g.startPart(t, ev, name, "skill", ev.Prompt))
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
			g.endThread(key)
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
			out = append(out, g.takePending(t)...)
			g.endThread(key)
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
	case event.PreSkillShellCommand:
		g.shellLine(t, ev)
	case event.PermissionDenied:
		g.denied(t, ev)
	case event.PreCompact, event.PostCompact:
		g.compaction(t, ev)
	case event.SessionEnd:
		// A turn still open here was cut short (Ctrl-C, a killed
		// process): incomplete, and it lasted until now.
		if cur := t.current(); cur != nil {
			g.touch(cur, ev)
		}
		out = append(out, g.endTurn(t, ev, false)...)
		out = append(out, g.takePending(t)...)
		// Close the session's subagents too.
		for _, k := range g.sortedKeys() {
			st := g.threads[k]
			if st.Session == t.Session && st.Agent != "" {
				out = append(out, g.endTurn(st, ev, false)...)
				out = append(out, g.takePending(st)...)
				g.endThread(k)
			}
		}
		g.endThread(key)
	}
	return out
}

// startPart opens a new execution in the thread's current turn.
func (g *Grouper) startPart(t *thread, ev *event.Event, skill, kind, prompt string) *Execution {
	t.Seq++
	if numbered(ev) {
		t.Numbered = true
	}
	x := &Execution{
		ID:        execID(t.Session, t.Agent, t.Seq, ev),
		SessionID: t.Session,
		AgentID:   t.Agent,
		Skill:     skill,
		Kind:      kind,
		Project:   t.Project,
		Prompt:    prompt,
		StartedAt: ev.Time,
		PromptID:  cmp.Or(ev.PromptID, t.PromptID),
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
	if x.PromptID == "" {
		x.PromptID = ev.PromptID
	}
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
	if !numbered(ev) {
		key = "t\x00" + ev.Time.UTC().Format(time.RFC3339Nano)
	}
	h := sha256.Sum256([]byte(session + "\x00" + agent + "\x00" + key))
	return hex.EncodeToString(h[:6])
}
