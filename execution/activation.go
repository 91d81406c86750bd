package execution

import "slices"

// Who invoked a skill (Execution.InvokedBy), in the words of Claude
// Code's own invoked_by (PreSkillShellCommand).
const (
	// InvokedByClaude: the model called the Skill tool, having chosen
	// the skill by its description.
	InvokedByClaude = "claude"
	// InvokedByUser: the person typed `/skill` (UserPromptSubmit,
	// UserPromptExpansion).
	InvokedByUser = "user"
)

// typed marks x, a skill's execution the person started by typing its
// name in the main thread, and tells whether it was a missed activation:
// the session had a turn before, and that turn did not use the skill.
// A typed name at a session's start is the person's choice, not a miss.
func typed(t *thread, x *Execution) {
	if t.Agent != "" || x.Kind != "skill" {
		return
	}
	x.InvokedBy = InvokedByUser
	x.MissedActivation = t.Turned && !slices.Contains(t.PrevSkills, x.Skill)
}

// usedSkills lists the skills of a turn's parts, each once.
func usedSkills(parts []*Execution) []string {
	var out []string
	for _, x := range parts {
		if x.Kind == "skill" && !slices.Contains(out, x.Skill) {
			out = append(out, x.Skill)
		}
	}
	return out
}
