package execution

import (
	"slices"
	"strings"

	"github.com/sepad/sepad/event"
)

// endTurn closes the thread's turn: unanswered PreToolUse calls become
// failures, empty parts are dropped, the last part is held as Pending (main
// thread) so the person's next prompt can give its verdict, and the others
// are returned. An execution that answered once (it was repaired since)
// stays complete.
func (g *Grouper) endTurn(t *thread, ev *event.Event, complete bool) []Execution {
	if len(t.Parts) == 0 {
		return nil
	}
	var out []Execution
	parts := t.Parts
	t.Parts = nil
	if t.Agent == "" {
		t.Turned, t.PrevSkills = true, usedSkills(parts)
	}
	for i, x := range parts {
		for j := range x.Calls {
			if !x.Calls[j].Done {
				x.Calls[j].NoPost = true
			}
		}
		x.Complete = complete || x.Repairs > 0
		if len(x.Calls) == 0 && !x.HasOutput {
			continue // nothing happened: not an execution
		}
		if i == len(parts)-1 && t.Agent == "" && complete {
			out = append(out, g.takePending(t)...)
			t.Pending = x
			continue
		}
		out = append(out, *x)
	}
	return out
}

// takePending releases the held execution.
func (g *Grouper) takePending(t *thread) []Execution {
	if t.Pending == nil {
		return nil
	}
	x := *t.Pending
	t.Pending = nil
	return []Execution{x}
}

// answer reads a person's prompt ev as a verdict on the answer before it:
// the last execution of a turn it interrupted (in closed, just closed),
// else the execution held from the last turn. A correction of the held
// execution that invokes no skill makes the new turn its repair: the
// turn continues that execution (repaired true), whose calls and output
// are then evidence about it, not about the session's base prompt.
// Otherwise the held execution is released.
func (g *Grouper) answer(t *thread, ev *event.Event, closed []Execution, invokesSkill bool) (out []Execution, repaired bool) {
	v := ReadVerdict(ev.Prompt)
	var target *Execution
	switch {
	case v == VerdictNone:
	case len(closed) > 0 && closed[len(closed)-1].AgentID == "":
		target = &closed[len(closed)-1]
	case t.Pending != nil:
		target = t.Pending
	}
	if target != nil {
		recordVerdict(target, v, ev)
	}
	if v == VerdictCorrection && !invokesSkill && target != nil && target == t.Pending {
		x := t.Pending
		t.Pending = nil
		x.Repairs++
		if !ev.Time.IsZero() && !x.EndedAt.IsZero() && ev.Time.After(x.EndedAt) {
			x.WaitedMS += ev.Time.Sub(x.EndedAt).Milliseconds()
		}
		t.Parts = []*Execution{x}
		g.touch(x, ev)
		return closed, true
	}
	return append(closed, g.takePending(t)...), false
}

// recordVerdict counts verdict v, given by the prompt of ev, on x.
func recordVerdict(x *Execution, v Verdict, ev *event.Event) {
	switch v {
	case VerdictCorrection:
		x.Corrections++
	case VerdictAcceptance:
		x.Acceptances++
	default:
		return
	}
	x.Verdicts = append(x.Verdicts, VerdictRecord{Verdict: v, Quote: quoteOf(ev.Prompt), Time: ev.Time})
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
