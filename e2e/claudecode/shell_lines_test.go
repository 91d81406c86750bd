package claudecode

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// Issue 37 item 2: a skill's own shell lines (“ !`cmd` “ in SKILL.md),
// which fire PreSkillShellCommand from 2.1.332 on.
func init() {
	scenarios = append(scenarios, shellLineScenarios...)
}

// statusSkill runs two shell lines when it is expanded; their output is
// in the skill's text the model reads.
const statusSkill = "---\nname: status\ndescription: Show the repository status. Use when asked for the status.\n---\n# Status\n\nBranch: !`echo shell-line-branch-out`\nTree: !`echo shell-line-tree-out`\n\nSay what you see. @@shelltyped@@\n"

var shellLineScenarios = []scenario{
	{
		// The model invokes the skill (Skill tool, invoked_by claude),
		// then the person types it (/status, invoked_by user): each
		// expansion fires one PreSkillShellCommand per line, which sepad
		// charges to that execution of the skill. The hook answers
		// nothing, so the lines run and their output reaches the model.
		name:     "skill_shell_lines",
		versions: []string{"2.1.332"},
		run: func(e *env) {
			e.write(".claude/skills/status/SKILL.md", statusSkill)
			e.API.Set("shellmodel", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("status")}},
				{Tools: []fakeclaude.Tool{bash("echo looked")}},
				{Text: answer},
			})
			e.API.Set("shelltyped", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo looked again")}},
				{Text: answer},
			})
			e.claude("-p", "what is the status? @@shellmodel@@")
			e.claude("-p", "/status")
			for _, key := range []string{"shellmodel", "shelltyped"} {
				seen := false
				for _, r := range e.API.Requests() {
					if r.Key == key && bytes.Contains(r.Body, []byte("shell-line-tree-out")) &&
						!bytes.Contains(r.Body, []byte("!`echo shell-line-tree-out`")) {
						seen = true
					}
				}
				if !seen {
					e.t.Errorf("%s: the model never saw the shell line's output (did the hook's answer stop it?)", key)
				}
			}
		},
		check: func(t *testing.T, v string, xs []scored) {
			st := bySkill(xs, "status")
			if len(st) != 2 {
				t.Fatalf("want 2 executions of status:\n%s", dump(xs))
			}
			calls := 0
			for _, x := range st {
				calls += x.ToolCalls
				if x.ToolFailures != 0 || x.ShellLines != 2 || !x.Complete || !x.HasOutput {
					t.Errorf("status: %d failed, %d shell lines; want 0 and 2\n%s", x.ToolFailures, x.ShellLines, dump(xs))
				}
			}
			// The lines are not tool calls: the Skill call and a Bash
			// call, then the typed run's Bash call.
			if calls != 3 {
				t.Errorf("status: %d calls in all, want 3 (the shell lines are not tool calls)\n%s", calls, dump(xs))
			}
		},
		spoolCheck: func(t *testing.T, spool []byte) {
			var by []string
			for _, l := range strings.Split(string(spool), "\n") {
				if strings.Contains(l, `"hook_event_name":"PreSkillShellCommand"`) {
					for _, w := range []string{"claude", "user"} {
						if strings.Contains(l, `"invoked_by":"`+w+`"`) {
							by = append(by, w)
						}
					}
				}
			}
			if strings.Join(by, " ") != "claude claude user user" {
				t.Errorf("PreSkillShellCommand lines invoked by %v; want claude twice, then user twice", by)
			}
		},
	},
}
