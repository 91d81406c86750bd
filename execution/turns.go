package execution

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/sepad/sepad/event"
)

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
