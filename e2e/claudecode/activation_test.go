package claudecode

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

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

// TestActivationThroughDaemon replays each recorded skill_activation spool
// through a real `sepad run`: `sepad versions release --json` counts the
// model's invocation, the two typed ones and the missed one, and `sepad
// grades` says so in words under its table, with the score's columns
// untouched by it.
func TestActivationThroughDaemon(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon per recorded spool")
	}
	for _, r := range recordings(t) {
		if r.Name != activationScenario.name {
			continue
		}
		t.Run(r.Version, func(t *testing.T) {
			d := replayFiles(t, filepath.Join(r.Dir, "events.jsonl"))
			if _, ok := d.waitStored(30*time.Second, func(xs []daemonExec) bool {
				n := 0
				for _, x := range xs {
					if x.Skill == "release" {
						n++
					}
				}
				return n == 3
			}); !ok {
				t.Fatalf("the daemon did not store the three runs of release")
			}
			var doc struct {
				Versions []struct {
					Activation *struct {
						Since  int            `json:"since"`
						Counts map[string]int `json:"counts"`
						Rate   *float64       `json:"rate"`
						Words  string         `json:"words"`
					} `json:"activation"`
				} `json:"versions"`
			}
			out := d.run("versions", "release", "--json")
			if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Versions) != 1 || doc.Versions[0].Activation == nil {
				t.Fatalf("sepad versions release --json: %v\n%s", err, out)
			}
			a := doc.Versions[0].Activation
			if a.Counts["claude"] != 1 || a.Counts["user"] != 2 || a.Counts["missed"] != 1 || a.Rate == nil || *a.Rate != 0.5 {
				t.Errorf("activation %+v, want the model once, typed twice, one missed: a rate of 0.5\n%s", a, out)
			}
			want := "release activation, description of v1: the model used it once on its own; the person typed it twice, 1 of them right after a turn without it (missed): the model picked it 1 of 2 times (50%)"
			if g := d.run("grades"); !strings.Contains(g, want) {
				t.Errorf("sepad grades lacks %q:\n%s", want, g)
			}
			d.stop()
		})
	}
}
