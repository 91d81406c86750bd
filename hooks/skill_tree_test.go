package hooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/treetest"
)

// TestSkillResolutionTrees: nested skills (bare and DIR:NAME), skills in
// the parents of a cwd outside any repository, and $CLAUDE_CONFIG_DIR, on
// literal trees. Paths are relative to a temporary base; the home is
// base/home unless a case says otherwise.
func TestSkillResolutionTrees(t *testing.T) {
	monorepo := map[string]string{
		"home/.claude/skills/mine/SKILL.md":                 "user mine",
		"repo/.git/HEAD":                                    "ref",
		"repo/.claude/skills/lint/SKILL.md":                 "root lint",
		"repo/apps/web/.claude/skills/deploy/SKILL.md":      "web deploy",
		"repo/apps/web/.claude/skills/lint/SKILL.md":        "web lint",
		"repo/apps/web/.claude/commands/webcmd.md":          "web command",
		"repo/apps/web/.claude/agents/webagent.md":          "web agent",
		"repo/apps/web/src/main.go":                         "package main",
		"repo/apps/api/.claude/skills/shared/SKILL.md":      "api shared",
		"repo/apps/cli/.claude/skills/shared/SKILL.md":      "cli shared",
		"repo/libs/.claude/skills/layered/SKILL.md":         "libs layered",
		"repo/libs/deep/x/.claude/skills/layered/SKILL.md":  "deep layered",
		"repo/node_modules/pkg/.claude/skills/npm/SKILL.md": "npm",
		"repo/vendor/mod/.claude/skills/vend/SKILL.md":      "vendored",
		"repo/.hidden/.claude/skills/hid/SKILL.md":          "hidden",
		"repo/a/b/c/.claude/skills/three/SKILL.md":          "three deep",
		"repo/a/b/c/d/.claude/skills/four/SKILL.md":         "four deep",
		"elsewhere/.claude/skills/linked/SKILL.md":          "linked",
		"repo/link":           "->elsewhere",
		"repo/apps/notes.txt": "not a dir",
		"repo/apps/web/.claude/skills/sub/dir/SKILL.md":       "two levels",
		"repo/.claude/skills/secret/SKILL.md/x":               "dir named SKILL.md",
		"repo/apps/web/.claude/skills/symlinked/SKILL.md":     "->elsewhere/.claude/skills/linked/SKILL.md",
		"repo/apps/web/.claude/skills/inlinked/SKILL.md":      "->repo/libs/deep/x/.claude/skills/layered/SKILL.md",
		"repo/apps/web/.claude/skills/plainfile":              "x",
		"repo/apps/other/.claude/skills/other/SKILL.md/inner": "dir",
	}
	nongit := map[string]string{
		"home/.claude/skills/mine/SKILL.md":                    "user mine",
		"home/.claude/agents/uagent.md":                        "user agent",
		"home/work/.claude/skills/parent/SKILL.md":             "work parent",
		"home/work/.claude/agents/pagent.md":                   "work agent",
		"home/work/.claude/commands/pcmd.md":                   "work command",
		"home/work/proj/.claude/skills/parent/SKILL.md":        "proj parent",
		"home/work/proj/sub/x.txt":                             "x",
		"home/work/proj/apps/web/.claude/skills/nweb/SKILL.md": "nongit nested",
		"home/work/other/.claude/skills/sib/SKILL.md":          "sibling",
		".claude/skills/above/SKILL.md":                        "above home",
		"tmp/a/.claude/skills/outside/SKILL.md":                "outside home",
		"tmp/a/b/c.txt":                                        "x",
		"cfg/skills/cfgskill/SKILL.md":                         "cfg skill",
		"cfg/agents/cfgagent.md":                               "cfg agent",
		"cfg/commands/cfgcmd.md":                               "cfg command",
		"home/proj2/.claude/skills/athome/SKILL.md":            "below home",
	}
	type tc struct {
		name  string
		tree  map[string]string
		cwd   string
		cfg   string // CLAUDE_CONFIG_DIR relative to base; "" unset
		event map[string]any
		want  string // resolved file relative to base; "" = none
	}
	skill := func(n string) map[string]any {
		return map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": map[string]any{"skill": n}}
	}
	agent := func(n string) map[string]any {
		return map[string]any{"hook_event_name": "SubagentStart", "agent_id": "a1", "agent_type": n}
	}
	expansion := func(n string) map[string]any {
		return map[string]any{"hook_event_name": "UserPromptExpansion", "command_name": n}
	}
	prompt := func(n string) map[string]any {
		return map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "/" + n + " now"}
	}
	cases := []tc{
		{"nested, bare name", monorepo, "repo", "", skill("deploy"), "repo/apps/web/.claude/skills/deploy/SKILL.md"},
		{"nested, bare name from a sibling dir", monorepo, "repo/libs", "", skill("deploy"), "repo/apps/web/.claude/skills/deploy/SKILL.md"},
		{"nested, typed slash command", monorepo, "repo", "", prompt("deploy"), "repo/apps/web/.claude/skills/deploy/SKILL.md"},
		{"root-level beats nested", monorepo, "repo", "", skill("lint"), "repo/.claude/skills/lint/SKILL.md"},
		{"nearest level beats root", monorepo, "repo/apps/web/src", "", skill("lint"), "repo/apps/web/.claude/skills/lint/SKILL.md"},
		{"scoped", monorepo, "repo", "", skill("apps/web:lint"), "repo/apps/web/.claude/skills/lint/SKILL.md"},
		{"scoped, expansion", monorepo, "repo", "", expansion("apps/web:deploy"), "repo/apps/web/.claude/skills/deploy/SKILL.md"},
		{"scoped from below the root", monorepo, "repo/apps/web/src", "", skill("apps/web:deploy"), "repo/apps/web/.claude/skills/deploy/SKILL.md"},
		{"scoped, relative to cwd", monorepo, "repo/apps", "", skill("web:deploy"), "repo/apps/web/.claude/skills/deploy/SKILL.md"},
		{"scoped, dir without that skill", monorepo, "repo", "", skill("apps/api:deploy"), ""},
		{"scoped, prefix not a dir: plugin", monorepo, "repo", "", skill("superpowers:deploy"), ""},
		{"scoped, prefix a file", monorepo, "repo", "", skill("apps/notes.txt:deploy"), ""},
		{"scoped, traversal", monorepo, "repo/apps/web", "", skill("../web:deploy"), ""},
		{"scoped, inner traversal", monorepo, "repo", "", skill("apps/x/../web:deploy"), ""},
		{"scoped, absolute", monorepo, "repo", "", skill("/repo/apps/web:deploy"), ""},
		{"scoped, hidden", monorepo, "repo", "", skill(".hidden:hid"), ""},
		{"scoped, empty prefix", monorepo, "repo", "", skill(":deploy"), ""},
		{"scoped, two colons", monorepo, "repo", "", skill("apps:web:deploy"), ""},
		{"scoped, bad skill", monorepo, "repo", "", skill("apps/web:.."), ""},
		{"scoped agent is a plugin agent", monorepo, "repo", "", agent("apps/web:webagent"), ""},
		{"nested, ambiguous at one depth", monorepo, "repo", "", skill("shared"), ""},
		{"nested, shallowest wins", monorepo, "repo", "", skill("layered"), "repo/libs/.claude/skills/layered/SKILL.md"},
		{"nested, not in node_modules", monorepo, "repo", "", skill("npm"), ""},
		{"nested, not in vendor", monorepo, "repo", "", skill("vend"), ""},
		{"nested, not in hidden dirs", monorepo, "repo", "", skill("hid"), ""},
		{"nested, at the depth limit", monorepo, "repo", "", skill("three"), "repo/a/b/c/.claude/skills/three/SKILL.md"},
		{"nested, past the depth limit", monorepo, "repo", "", skill("four"), ""},
		{"nested, no symlinked dirs", monorepo, "repo", "", skill("linked"), ""},
		{"nested, a SKILL.md linked out of the project is not hashed", monorepo, "repo", "", skill("symlinked"), "repo/apps/web/.claude/skills/symlinked/SKILL.md"},
		{"nested, a SKILL.md linked inside the project is read", monorepo, "repo", "", skill("inlinked"), "repo/apps/web/.claude/skills/inlinked/SKILL.md"},
		{"nested, two levels is not a skill", monorepo, "repo", "", skill("sub"), ""},
		{"nested, SKILL.md a directory", monorepo, "repo", "", skill("secret"), ""},
		{"nested, no commands", monorepo, "repo", "", expansion("webcmd"), ""},
		{"nested, no agents", monorepo, "repo", "", agent("webagent"), ""},
		{"user skill", monorepo, "repo", "", skill("mine"), "home/.claude/skills/mine/SKILL.md"},
		{"miss", monorepo, "repo/apps/web", "", skill("nothing-here"), ""},

		{"no repo: parent dir", nongit, "home/work/proj/sub", "", skill("parent"), "home/work/proj/.claude/skills/parent/SKILL.md"},
		{"no repo: grandparent dir", nongit, "home/work/proj/sub", "", expansion("pcmd"), "home/work/.claude/commands/pcmd.md"},
		{"no repo: parent agent", nongit, "home/work/proj/sub", "", agent("pagent"), "home/work/.claude/agents/pagent.md"},
		{"no repo: not above home", nongit, "home/work/proj/sub", "", skill("above"), ""},
		{"no repo: not a sibling", nongit, "home/work/proj/sub", "", skill("sib"), ""},
		{"no repo: user skill", nongit, "home/work/proj/sub", "", skill("mine"), "home/.claude/skills/mine/SKILL.md"},
		{"no repo: user agent", nongit, "home/work", "", agent("uagent"), "home/.claude/agents/uagent.md"},
		{"no repo: nested below cwd", nongit, "home/work/proj", "", skill("nweb"), "home/work/proj/apps/web/.claude/skills/nweb/SKILL.md"},
		{"no repo: scoped below cwd", nongit, "home/work/proj", "", skill("apps/web:nweb"), "home/work/proj/apps/web/.claude/skills/nweb/SKILL.md"},
		{"no repo outside home: up to /", nongit, "tmp/a/b", "", skill("outside"), "tmp/a/.claude/skills/outside/SKILL.md"},
		{"no repo outside home: above too", nongit, "tmp/a/b", "", skill("above"), ".claude/skills/above/SKILL.md"},
		{"cwd is home: no nested search", nongit, "home", "", skill("athome"), ""},

		{"config dir: skill", nongit, "home/work", "cfg", skill("cfgskill"), "cfg/skills/cfgskill/SKILL.md"},
		{"config dir: agent", nongit, "home/work", "cfg", agent("cfgagent"), "cfg/agents/cfgagent.md"},
		{"config dir: command", nongit, "home/work", "cfg", prompt("cfgcmd"), "cfg/commands/cfgcmd.md"},
		{"config dir replaces ~/.claude", nongit, "home/work", "cfg", skill("mine"), ""},
		{"config dir replaces ~/.claude agents", nongit, "home/work", "cfg", agent("uagent"), ""},
		{"config dir: project levels still read", nongit, "home/work/proj/sub", "cfg", skill("parent"), "home/work/proj/.claude/skills/parent/SKILL.md"},
		{"config dir unset: not read", nongit, "home/work", "", skill("cfgskill"), ""},
	}
	built := map[string]string{"monorepo": t.TempDir(), "nongit": t.TempDir()}
	treetest.Write(t, built["monorepo"], monorepo)
	treetest.Write(t, built["nongit"], nongit)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := built["nongit"]
			if _, ok := c.tree["repo/.git/HEAD"]; ok {
				base = built["monorepo"]
			}
			env := ""
			if c.cfg != "" {
				env = filepath.Join(base, c.cfg)
			}
			t.Setenv("CLAUDE_CONFIG_DIR", env)
			p := map[string]any{"session_id": "s", "cwd": filepath.Join(base, filepath.FromSlash(c.cwd))}
			for k, v := range c.event {
				p[k] = v
			}
			s := enrichMap(t, p, Options{UserHome: filepath.Join(base, "home")}).sepa
			want := ""
			if c.want != "" {
				want = filepath.Join(base, filepath.FromSlash(c.want))
			}
			if s.SkillPath != want {
				t.Fatalf("skill %q: path %q, want %q", s.Skill, s.SkillPath, want)
			}
			if strings.Contains(c.name, "out of the project") {
				if s.SkillVersion != "" || s.SkillLink != "outside_project" {
					t.Fatalf("a link out of the project: %+v", s)
				}
			} else if want != "" {
				b, err := os.ReadFile(want)
				if err != nil {
					t.Fatal(err)
				}
				if s.SkillVersion != version(string(b)) {
					t.Fatalf("version %q, want %q", s.SkillVersion, version(string(b)))
				}
			}
		})
	}
}
