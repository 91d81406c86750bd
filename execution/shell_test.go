package execution

import (
	"testing"

	"github.com/sepad/sepad/event"
)

// groupLines groups literal lines (each must parse).
func groupLines(t *testing.T, lines ...string) []Execution {
	t.Helper()
	g := NewGrouper(Options{})
	var out []Execution
	for _, l := range lines {
		ev, err := event.ParseLine([]byte(l))
		if err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		out = append(out, g.Add(&ev)...)
	}
	return append(out, g.Flush()...)
}

func TestShellLines(t *testing.T) {
	const s = `"session_id":"s","cwd":"/p"`
	ts := func(n int) string { return `"sepa":{"v":1,"ts":"2026-11-24T10:00:0` + string(rune('0'+n)) + `Z"}` }
	// skill is the sepa object of an event the hook resolved to the
	// status skill's prompt file.
	skill := func(n int) string {
		return `"sepa":{"v":1,"ts":"2026-11-24T10:00:0` + string(rune('0'+n)) + `Z","skill":"status","skill_path":"/p/.claude/skills/status/SKILL.md","skill_version":"abc"}`
	}
	shell := func(n int, id, cmd, by string) string {
		return `{` + s + `,"hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"` + cmd +
			`"},"tool_use_id":"` + id + `","command_name":"status","invoked_by":"` + by + `",` + skill(n) + `}`
	}
	t.Run("model", func(t *testing.T) {
		xs := groupLines(t,
			`{`+s+`,"hook_event_name":"UserPromptSubmit","prompt":"status?",`+ts(0)+`}`,
			`{`+s+`,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"a",`+ts(1)+`}`,
			`{`+s+`,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"a",`+ts(1)+`}`,
			`{`+s+`,"hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"status"},"tool_use_id":"k",`+skill(2)+`}`,
			shell(3, "k:preamble-0", "git branch", "claude"),
			shell(3, "k:preamble-1", "git status", "claude"),
			`{`+s+`,"hook_event_name":"PostToolUse","tool_name":"Skill","tool_input":{"skill":"status"},"tool_use_id":"k",`+skill(4)+`}`,
			`{`+s+`,"hook_event_name":"Stop","last_assistant_message":"ok",`+ts(5)+`}`,
		)
		if len(xs) != 2 || xs[0].Skill != SessionSkill || xs[1].Skill != "status" {
			t.Fatalf("want _session then status: %+v", xs)
		}
		if len(xs[0].ShellLines) != 0 {
			t.Errorf("_session got shell lines: %+v", xs[0].ShellLines)
		}
		st := xs[1]
		if len(st.ShellLines) != 2 || st.ShellLines[1].Command != "git status" || st.ShellLines[0].InvokedBy != "claude" || st.ShellLines[0].ID != "k:preamble-0" {
			t.Errorf("status's shell lines: %+v", st.ShellLines)
		}
		// Not tool calls: the Skill call only.
		if len(st.Calls) != 1 || st.Failures() != 0 {
			t.Errorf("status's calls: %+v\n%+v", st.Calls, xs)
		}
	})
	t.Run("typed", func(t *testing.T) {
		xs := groupLines(t,
			`{`+s+`,"hook_event_name":"UserPromptSubmit","prompt":"/status",`+skill(0)+`}`,
			`{`+s+`,"hook_event_name":"UserPromptExpansion","command_name":"status","prompt":"/status",`+skill(1)+`}`,
			shell(2, "u:inner:preamble-0", "git branch", "user"),
			`{`+s+`,"hook_event_name":"Stop","last_assistant_message":"ok",`+ts(5)+`}`,
		)
		if len(xs) != 1 || xs[0].Skill != "status" || len(xs[0].ShellLines) != 1 || xs[0].ShellLines[0].InvokedBy != "user" {
			t.Fatalf("want one status execution with its line: %+v", xs)
		}
	})
	t.Run("no execution yet", func(t *testing.T) {
		// A line of a skill nothing runs yet (a subagent's preload, an
		// order not seen so far) opens the skill's execution.
		xs := groupLines(t,
			`{`+s+`,"hook_event_name":"UserPromptSubmit","prompt":"go",`+ts(0)+`}`,
			shell(1, "x:preamble-0", "date", "other"),
			`{`+s+`,"hook_event_name":"Stop","last_assistant_message":"ok",`+ts(5)+`}`,
		)
		if len(xs) != 1 || xs[0].Skill != "status" || xs[0].Kind != "skill" || xs[0].SkillVersion != "abc" || len(xs[0].ShellLines) != 1 {
			t.Fatalf("want the status execution (the empty _session part is dropped): %+v", xs)
		}
	})
	t.Run("bundled", func(t *testing.T) {
		// No prompt file: the line goes with the running execution.
		xs := groupLines(t,
			`{`+s+`,"hook_event_name":"UserPromptSubmit","prompt":"go",`+ts(0)+`}`,
			`{`+s+`,"hook_event_name":"PreSkillShellCommand","tool_name":"Bash","tool_input":{"command":"date"},"command_name":"batch","invoked_by":"claude","sepa":{"v":1,"ts":"2026-11-24T10:00:01Z","skill":"batch"}}`,
			`{`+s+`,"hook_event_name":"Stop","last_assistant_message":"ok",`+ts(5)+`}`,
		)
		if len(xs) != 1 || xs[0].Skill != SessionSkill || len(xs[0].ShellLines) != 1 {
			t.Fatalf("want the _session execution with the line: %+v", xs)
		}
	})
}
