package execution

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
)

// A typed `/skill` fires UserPromptSubmit and UserPromptExpansion with the
// same prompt_id; 2.1.328 sends the submit first, 2.1.197 the expansion.
// Either order gives one execution of the skill, and the held answer of
// the turn before is released once, by whichever comes first. A name the
// prompt grammar refuses (`apps/web:deploy`) is seen by the expansion only.
func TestTypedSkillEitherOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 5, 0, 0, 0, time.UTC)
	at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
	in := json.RawMessage(`{"command":"echo web"}`)
	for _, tc := range []struct {
		name, skill, prompt string
		expansionFirst      bool
	}{
		{"submit first", "deploy", "/deploy now", false},
		{"expansion first", "deploy", "/deploy now", true},
		{"expansion first, scoped name", "apps/web:deploy", "/apps/web:deploy now", true},
		{"submit first, scoped name", "apps/web:deploy", "/apps/web:deploy now", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			submit := event.Event{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: tc.prompt, PromptID: "p2", Time: at(10)}
			expand := event.Event{SessionID: "s", HookEvent: event.UserPromptExpansion, CommandName: tc.skill, Prompt: tc.prompt, PromptID: "p2", Time: at(10)}
			first, second := submit, expand
			if tc.expansionFirst {
				first, second = expand, submit
			}
			second.Time = at(11)
			evs := []event.Event{
				{SessionID: "s", HookEvent: event.UserPromptSubmit, Prompt: "look around", PromptID: "p1", Time: at(1)},
				{SessionID: "s", HookEvent: event.PreToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: "t1", Time: at(2)},
				{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: "t1", Time: at(3)},
				{SessionID: "s", HookEvent: event.Stop, LastMessage: "looked", PromptID: "p1", Time: at(4)},
				first, second,
				{SessionID: "s", HookEvent: event.PreToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: "t2", PromptID: "p2", Time: at(12)},
				{SessionID: "s", HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: "t2", PromptID: "p2", Time: at(13)},
				{SessionID: "s", HookEvent: event.Stop, LastMessage: "deployed", PromptID: "p2", Time: at(14)},
				{SessionID: "s", HookEvent: event.SessionEnd, Time: at(15)},
			}
			g := NewGrouper(Options{})
			var xs []Execution
			for i := range evs {
				xs = append(xs, g.Add(&evs[i])...)
			}
			if len(xs) != 2 {
				t.Fatalf("want the first turn's _session and the skill, got %d: %+v", len(xs), xs)
			}
			s, d := xs[0], xs[1]
			if s.Skill != SessionSkill || len(s.Calls) != 1 || s.Output != "looked" {
				t.Errorf("first turn: %+v", s)
			}
			if d.Skill != tc.skill || len(d.Calls) != 1 || d.Output != "deployed" || !d.Complete {
				t.Errorf("typed skill: %+v", d)
			}
			if !d.StartedAt.Equal(at(10)) {
				t.Errorf("the skill started at %v, want the first of its two prompt events (%v)", d.StartedAt, at(10))
			}
		})
	}
}
