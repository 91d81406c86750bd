package execution

import (
	"time"

	"github.com/sepad/sepad/event"
)

// Compaction is one compaction of the conversation while an execution
// ran: what the model knew before it is a summary after it.
type Compaction struct {
	// Trigger is manual (/compact) or auto (the context was full).
	Trigger string `json:"trigger,omitempty"`
	// At is the PreCompact's time; Done is set once PostCompact came.
	At   time.Time `json:"at,omitempty"`
	Done bool      `json:"done,omitempty"`
}

// denied marks the call a PermissionDenied names as refused: Claude
// Code's permission layer, not the prompt, stopped it, so it is neither
// a success nor a failure of the execution (docs/executions.md,
// "Permission denials"). A denial of a call no hook reported is kept as
// a refused call of the running execution.
func (g *Grouper) denied(t *thread, ev *event.Event) {
	c, x := t.findCall(ev.ToolUseID)
	if c == nil && t.Fork != "" {
		if fx := g.forkTarget(t); fx != nil {
			c, x = fx.findCall(ev.ToolUseID), fx
		}
	}
	if c == nil {
		if x = t.current(); x == nil {
			x = g.startPart(t, ev, g.baseSkill(t), g.baseKind(t), "")
		}
		x.Calls = append(x.Calls, newCall(ev))
		c = &x.Calls[len(x.Calls)-1]
	}
	c.Denied, c.NoPost, c.Done = true, false, true
	c.Failed, c.Retry = false, false
	c.Error = ev.Reason
	if c.Error == "" {
		c.Error = "permission denied"
	}
	if !ev.Time.IsZero() {
		c.End = ev.Time
	}
	g.touch(x, ev)
}

// compaction records a compaction on the execution running when it
// began (PreCompact), and its end (PostCompact). A compaction between
// turns (a typed /compact) cuts no execution.
func (g *Grouper) compaction(t *thread, ev *event.Event) {
	x := t.current()
	if x == nil {
		return
	}
	if ev.HookEvent == event.PostCompact {
		if n := len(x.Compactions); n > 0 && !x.Compactions[n-1].Done {
			x.Compactions[n-1].Done = true
			g.touch(x, ev)
		}
		return
	}
	x.Compactions = append(x.Compactions, Compaction{Trigger: ev.Trigger, At: ev.Time})
	g.touch(x, ev)
}
