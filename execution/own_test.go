package execution

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
)

// sepad's own commands (/sepad:grades from the sepad plugin) are not the
// person's prompts: their executions are left out, whether the hook
// resolved the plugin or only Claude Code's "sepad:" scope names it; a
// person's plugin of another name, and the turns around, stay.
func TestOwnCommandsLeftOut(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 17, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	in := json.RawMessage(`{"command":"sepad grades"}`)
	typed := func(id, skill, plugin string, i int) []event.Event {
		sepa := &event.Sepa{Skill: skill, Plugin: plugin}
		if plugin == "" {
			sepa = nil
		}
		return []event.Event{
			{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "/" + skill, PromptID: id, Time: at(i), Sepa: sepa},
			{SessionID: "s", HookEvent: event.UserPromptExpansion, CommandName: skill, Prompt: "/" + skill, PromptID: id, Time: at(i + 1), Sepa: sepa},
			{SessionID: "s", HookEvent: event.PreToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: id + "t", PromptID: id, Time: at(i + 2)},
			{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: id + "t", PromptID: id, Time: at(i + 3)},
			{SessionID: "s", HookEvent: event.Stop, LastMessage: "done", PromptID: id, Time: at(i + 4)},
		}
	}
	var evs []event.Event
	evs = append(evs, typed("p1", "deploy", "", 0)...)
	evs = append(evs, typed("p2", "sepad:grades", "sepad", 10)...) // resolved by the hook
	evs = append(evs, typed("p3", "sepad:explain", "", 20)...)     // only the scope tells
	evs = append(evs, typed("p4", "tools:lint", "tools", 30)...)   // a person's plugin
	evs = append(evs, event.Event{SessionID: "s", HookEvent: event.SessionEnd, Time: at(40)})
	g := NewGrouper(Options{})
	xs := feed(g, evs)
	var got []string
	for _, x := range xs {
		got = append(got, x.Skill)
	}
	if len(xs) != 2 || xs[0].Skill != "deploy" || xs[1].Skill != "tools:lint" {
		t.Fatalf("executions %q, want deploy and tools:lint", got)
	}
	if g.Own() != 2 {
		t.Errorf("Own() = %d, want the 2 executions of sepad's commands", g.Own())
	}
}
