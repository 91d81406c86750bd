package execution

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/sepad/sepad/event"
)

// ShellLine is one “ !`cmd` “ line of a skill's or command's text that
// Claude Code ran when it expanded the prompt (PreSkillShellCommand,
// 2.1.332 and later). No post event follows: its result reaches the
// model only through the expanded text, so the rubric does not count it
// as a tool call, a success or a failure (docs/rubric.md, "Shell lines").
type ShellLine struct {
	// ID is the event's tool_use_id: "<the Skill call's id>:preamble-N"
	// for a skill the model invoked; it names no tool call.
	ID string `json:"id,omitempty"`
	// Tool is Bash or PowerShell.
	Tool string `json:"tool,omitempty"`
	// Command is the line as it runs (at most maxCommand bytes).
	Command string `json:"command,omitempty"`
	// InvokedBy is user (typed), claude (the Skill tool) or other.
	InvokedBy string `json:"invoked_by,omitempty"`
	// At is when the hook saw it.
	At time.Time `json:"at,omitempty"`
}

// shellLine charges a skill's own shell line to the execution of the
// skill it names (command_name): the one its Skill call started (the
// line's tool_use_id is that call's, with ":preamble-N" after it), else
// the newest part of the thread running that skill, else the execution
// held from the last turn if it is that skill's. A line of a skill no
// execution runs yet opens one, as the skill's expansion would; a line of
// a skill with no prompt file (bundled) goes with the running execution.
func (g *Grouper) shellLine(t *thread, ev *event.Event) {
	name := strings.TrimPrefix(strings.TrimSpace(ev.CommandName), "/")
	if name == "" {
		return
	}
	builtin := ev.Sepa != nil && ev.Sepa.SkillPath == "" && !strings.Contains(name, ":")
	if ev.Sepa != nil && ev.Sepa.Plugin != "" && ev.Sepa.Skill == ev.Sepa.Plugin+":"+name {
		name = ev.Sepa.Skill // a bare name the hook resolved to a plugin's prompt
	}
	var x *Execution
	if id, _, ok := strings.Cut(ev.ToolUseID, ":preamble-"); ok && id != "" {
		if c, cx := t.findCall(id); c != nil && cx.Skill == name {
			x = cx
		}
	}
	for i := len(t.Parts) - 1; x == nil && i >= 0; i-- {
		if t.Parts[i].Skill == name {
			x = t.Parts[i]
		}
	}
	if x == nil && t.Pending != nil && t.Pending.Skill == name {
		x = t.Pending
	}
	switch {
	case x != nil:
	case builtin:
		// A skill with no prompt file (bundled with Claude Code): its
		// work stays with the execution that called it, as invokes says.
		if x = t.current(); x == nil {
			x = g.startPart(t, ev, g.baseSkill(t), g.baseKind(t), "")
		}
	default:
		x = g.startPart(t, ev, name, "skill", "")
	}
	l := ShellLine{ID: ev.ToolUseID, Tool: ev.ToolName, InvokedBy: ev.InvokedBy, At: ev.Time}
	var in struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(ev.ToolInput, &in) == nil {
		l.Command = strings.ToValidUTF8(in.Command[:min(len(in.Command), maxCommand)], "")
	}
	if x.SkillVersion == "" {
		g.attribute(x, ev, name)
	}
	x.ShellLines = append(x.ShellLines, l)
	g.touch(x, ev)
}
