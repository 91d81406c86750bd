package record

import (
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/execution"
)

// SessionDisplay is what every view calls the session's base prompt,
// whose stable id is execution.SessionSkill ("_session"): the
// instruction files each Claude Code session loads at its start, the
// project's CLAUDE.md first among them (docs/executions.md). The id stays
// in --json and in the store; people read this name.
const SessionDisplay = "CLAUDE.md"

// DisplayName is the name a person reads for a skill id: SessionDisplay
// for the session's base prompt, the id itself for every other prompt.
func DisplayName(name string) string {
	if name == execution.SessionSkill {
		return SessionDisplay
	}
	return name
}

// Display is the skill's DisplayName.
func (s *Skill) Display() string { return DisplayName(s.Name) }

// SkillArg turns a person's name for the session's base prompt into its
// id: "CLAUDE.md" is "_session", "PROJECT#CLAUDE.md" is
// "PROJECT#_session", and the path of a project's CLAUDE.md,
// CLAUDE.local.md or .claude/CLAUDE.md is "PROJECT#_session". Any other
// argument is returned as it is.
func SkillArg(arg string) string {
	if arg == SessionDisplay {
		return execution.SessionSkill
	}
	if p, ok := strings.CutSuffix(arg, "#"+SessionDisplay); ok && p != "" {
		return p + "#" + execution.SessionSkill
	}
	if filepath.IsAbs(arg) {
		switch filepath.Base(arg) {
		case "CLAUDE.md", "CLAUDE.local.md":
			dir := filepath.Dir(arg)
			if filepath.Base(dir) == ".claude" {
				dir = filepath.Dir(dir)
			}
			return dir + "#" + execution.SessionSkill
		}
	}
	return arg
}
