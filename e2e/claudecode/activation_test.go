package claudecode

import (
	"sort"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// Issue 37 item 4: activation. The same skill three ways: the model
// invokes it by its description (the Skill tool), the person types it at a
// session's start, and the person types it right after a turn in which the
// model answered without it (a missed activation).
func init() {
	scenarios = append(scenarios, activationScenario)
}

// releaseSkill has one shell line, so that 2.1.332's PreSkillShellCommand
// says who invoked each expansion in Claude Code's own words (invoked_by),
// beside sepad's marks.
const releaseSkill = "---\nname: release\ndescription: Write the release notes. Use when asked what changed or for release notes.\n---\n# Release notes\n\nTag: !`echo activation-tag-v1`\n\nList the changes since the tag. @@acttyped@@\n"

var activationScenario = scenario{
	name: "skill_activation",
	run: func(e *env) {
		e.write(".claude/skills/release/SKILL.md", releaseSkill)
		notes := "## Release notes\n\n- Fixed the build."
		// The model chooses the skill by its description.
		e.API.Set("actmodel", fakeclaude.Script{
			{Tools: []fakeclaude.Tool{skillCall("release")}},
			{Tools: []fakeclaude.Tool{bash("echo changes")}},
			{Text: notes},
		})
		// Typed: the script is chosen by the marker in the skill's text.
		e.API.Set("acttyped", fakeclaude.Script{
			{Tools: []fakeclaude.Tool{bash("echo changes typed")}},
			{Text: notes},
		})
		// Missed: the model answers the first turn without the skill;
		// the person then types /release in the same session.
		e.API.Set("actmissed", fakeclaude.Script{
			{Tools: []fakeclaude.Tool{bash("echo looked")}},
			{Text: "Some things changed."},
			{Tools: []fakeclaude.Tool{bash("echo changes after")}},
			{Text: notes},
		})
		// First: streamTurns waits for each turn's Stop by counting the
		// Stops in the spool, which the other sessions would add to.
		e.streamTurns([]string{"what changed since the tag? @@actmissed@@", "/release"})
		e.claude("-p", "write the release notes @@actmodel@@")
		e.claude("-p", "/release")
	},
	check: func(t *testing.T, v string, xs []scored) {
		rel := bySkill(xs, "release")
		var marks []string
		for _, x := range rel {
			m := x.InvokedBy
			if x.Missed {
				m += " missed"
			}
			marks = append(marks, m)
			if !x.Complete || !x.HasOutput || x.ToolFailures != 0 {
				t.Errorf("release: %+v", x)
			}
		}
		sort.Strings(marks)
		if strings.Join(marks, ", ") != "claude, user, user missed" {
			t.Errorf("release invoked %q; want one by the model, one typed, one typed after a turn without it (missed)\n%s", marks, dump(xs))
		}
		// The turn the model answered without the skill is the session's.
		s := bySkill(xs, "_session")
		if len(s) != 1 || s[0].InvokedBy != "" || s[0].Missed {
			t.Errorf("want one _session execution, unmarked:\n%s", dump(xs))
		}
		// The missed activation is in the session of that turn.
		for _, x := range rel {
			if x.Missed && (len(s) != 1 || x.SessionID != s[0].SessionID) {
				t.Errorf("the missed activation is not in the session that went without the skill:\n%s", dump(xs))
			}
		}
	},
	spoolCheck: func(t *testing.T, spool []byte) {
		// 2.1.332 names the invoker of each shell line; older versions
		// send no such event.
		n := map[string]int{}
		for _, l := range strings.Split(string(spool), "\n") {
			if !strings.Contains(l, `"hook_event_name":"PreSkillShellCommand"`) {
				continue
			}
			for _, w := range []string{"claude", "user", "other"} {
				if strings.Contains(l, `"invoked_by":"`+w+`"`) {
					n[w]++
				}
			}
		}
		if len(n) > 0 && (n["claude"] != 1 || n["user"] != 2 || n["other"] != 0) {
			t.Errorf("PreSkillShellCommand invoked_by %v; want claude once and user twice, as sepad marks them", n)
		}
	},
}
