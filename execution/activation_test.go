package execution

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
)

// Who invoked each skill execution, and which typed invocations came right
// after a turn that did not use the skill (missed activations).
func TestActivationMarks(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	in := json.RawMessage(`{"command":"echo hi"}`)
	skill := json.RawMessage(`{"skill":"deploy"}`)
	type step struct {
		kind   string // "ask", "model", "typed", "typed-expansion-first", "end"
		prompt string
	}
	// turn returns the events of one turn of session s.
	turn := func(s string, i int, st step) []event.Event {
		at := func(k int) time.Time { return t0.Add(time.Duration(i*10+k) * time.Second) }
		pid := "p" + string(rune('a'+i))
		bash := []event.Event{
			{SessionID: s, HookEvent: event.PreToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: pid + "b", PromptID: pid, Time: at(3)},
			{SessionID: s, HookEvent: event.PostToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: pid + "b", PromptID: pid, Time: at(4)},
			{SessionID: s, HookEvent: event.Stop, LastMessage: "done", PromptID: pid, Time: at(5)},
		}
		submit := event.Event{SessionID: s, HookEvent: event.UserPromptSubmit, Prompt: st.prompt, PromptID: pid, Time: at(0)}
		var name string
		if len(st.prompt) > 1 && st.prompt[0] == '/' {
			name = st.prompt[1:]
		}
		expand := event.Event{SessionID: s, HookEvent: event.UserPromptExpansion, CommandName: name, Prompt: st.prompt, PromptID: pid, Time: at(1)}
		switch st.kind {
		case "ask":
			return append([]event.Event{submit}, bash...)
		case "model":
			return append([]event.Event{submit,
				{SessionID: s, HookEvent: event.PreToolUse, ToolName: "Skill", ToolInput: skill, ToolUseID: pid + "s", PromptID: pid, Time: at(1)},
				{SessionID: s, HookEvent: event.PostToolUse, ToolName: "Skill", ToolInput: skill, ToolUseID: pid + "s", PromptID: pid, Time: at(2)},
			}, bash...)
		case "typed":
			return append([]event.Event{submit, expand}, bash...)
		case "typed-expansion-first":
			expand.Time = at(0)
			submit.Time = at(1)
			return append([]event.Event{expand, submit}, bash...)
		case "end":
			return []event.Event{{SessionID: s, HookEvent: event.SessionEnd, Time: at(0)}}
		}
		panic(st.kind)
	}
	type mark struct {
		by     string
		missed bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
		want  []mark // the skill executions' marks, in order
	}{
		{"typed first", []step{{"typed", "/deploy"}}, []mark{{"user", false}}},
		{"model", []step{{"ask", "ship it"}, {"model", "ship it now"}}, []mark{{"claude", false}}},
		{"typed after a turn without it", []step{{"ask", "ship it"}, {"typed", "/deploy"}}, []mark{{"user", true}}},
		{"expansion first (2.1.197)", []step{{"ask", "ship it"}, {"typed-expansion-first", "/deploy"}}, []mark{{"user", true}}},
		{"typed after the model used it", []step{{"model", "ship it"}, {"typed", "/deploy"}}, []mark{{"claude", false}, {"user", false}}},
		{"typed twice", []step{{"typed", "/deploy"}, {"typed", "/deploy"}}, []mark{{"user", false}, {"user", false}}},
		{"typed after another skill", []step{{"typed", "/review"}, {"typed", "/deploy"}}, []mark{{"user", false}, {"user", true}}},
		{"missed, then the model", []step{{"ask", "ship it"}, {"typed", "/deploy"}, {"ask", "again"}, {"model", "ship"}}, []mark{{"user", true}, {"claude", false}}},
		{"a new session starts afresh", []step{{"ask", "ship it"}, {"end", ""}, {"typed", "/deploy"}}, []mark{{"user", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var evs []event.Event
			for i, st := range tc.steps {
				evs = append(evs, turn("s", i, st)...)
			}
			evs = append(evs, event.Event{SessionID: "s", HookEvent: event.SessionEnd, Time: t0.Add(time.Hour)})
			// Through a save and restore after every event: the marks
			// survive a daemon restart between turns.
			g := NewGrouper(Options{})
			var xs []Execution
			for i := range evs {
				xs = append(xs, g.Add(&evs[i])...)
				put, _ := g.Dirty()
				g2 := NewGrouper(Options{})
				if err := g2.Restore(put); err != nil {
					t.Fatal(err)
				}
				for k, th := range g.threads {
					if _, ok := put[k]; !ok {
						g2.threads[k] = th
					}
				}
				g2.ended = g.ended
				g = g2
			}
			var got []mark
			for _, x := range xs {
				if x.Kind == "skill" {
					got = append(got, mark{x.InvokedBy, x.MissedActivation})
				} else if x.InvokedBy != "" || x.MissedActivation {
					t.Errorf("%s execution marked %q %v", x.Kind, x.InvokedBy, x.MissedActivation)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("skill executions %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("execution %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}
