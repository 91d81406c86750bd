package execution

import "strings"

// OwnPlugin is the name of sepad's own Claude Code plugin (plugin/ in
// sepad's repository). Its commands and skill (/sepad:grades,
// /sepad:explain, …) are sepad talking about the person's prompts, not
// one of them: their executions are left out of what the Grouper returns,
// so they are neither scored, stored nor graded (docs/claude-code.md,
// "sepad's own commands"). They are recognised by the plugin's name: the
// one the hook resolved (Plugin), or the "sepad:" scope Claude Code gives
// the prompt's name when the hook could not resolve the plugin.
const OwnPlugin = "sepad"

// IsOwn reports whether x is an execution of sepad's own plugin.
func (x *Execution) IsOwn() bool {
	return x.Plugin == OwnPlugin || strings.HasPrefix(x.Skill, OwnPlugin+":")
}

// keep drops the executions of sepad's own commands from xs, counting
// them (Own).
func (g *Grouper) keep(xs []Execution) []Execution {
	out := xs[:0]
	for i := range xs {
		if xs[i].IsOwn() {
			g.own++
			continue
		}
		out = append(out, xs[i])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Own counts the executions of sepad's own commands this Grouper left
// out since it was made.
func (g *Grouper) Own() int { return g.own }
