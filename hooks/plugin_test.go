package hooks

import (
	"os"
	"path/filepath"
	"testing"
)

// pluginTree builds a Claude Code directory with an installed plugin from
// a directory marketplace (read from its source folder), one from a git
// marketplace (read from the cache), a skills-dir plugin, and a project.
func pluginTree(t *testing.T) (home, cfg, cwd, market string) {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	base := t.TempDir()
	home = filepath.Join(base, "home")
	cfg = filepath.Join(home, ".claude")
	cwd = filepath.Join(base, "proj")
	market = filepath.Join(base, "market")
	write := func(p, content string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(cwd, ".git"), 0o755)
	write(filepath.Join(cwd, ".claude/skills/review/SKILL.md"), "project review")
	write(filepath.Join(market, ".claude-plugin/marketplace.json"), `{"name":"tools","plugins":[{"name":"other","source":{"source":"github","repo":"x/y"}},{"name":"acme","source":"./plugins/acme"}]}`)
	write(filepath.Join(market, "plugins/acme/.claude-plugin/plugin.json"), `{"name":"acme","version":"1.3.0"}`)
	write(filepath.Join(market, "plugins/acme/skills/deploy/SKILL.md"), "acme deploy (source)")
	write(filepath.Join(market, "plugins/acme/commands/ship.md"), "acme ship")
	write(filepath.Join(market, "plugins/acme/agents/reviewer.md"), "acme reviewer")
	write(filepath.Join(market, "plugins/acme/skills/review/SKILL.md"), "acme review")
	cache := filepath.Join(cfg, "plugins/cache")
	write(filepath.Join(cache, "tools/acme/1.2.0/skills/deploy/SKILL.md"), "acme deploy (cache)")
	write(filepath.Join(cache, "gitm/beta/2.0.0/skills/lint/SKILL.md"), "beta lint")
	write(filepath.Join(cfg, "plugins/installed_plugins.json"), `{
  "version": 2,
  "plugins": {
    "acme@tools": [
      {"scope": "user", "installPath": "`+filepath.Join(cache, "tools/acme/1.2.0")+`", "version": "1.2.0"}
    ],
    "beta@gitm": [
      {"scope": "user", "installPath": "`+filepath.Join(cache, "gitm/beta/2.0.0")+`", "version": "2.0.0", "gitCommitSha": "abc"}
    ]
  }
}`)
	write(filepath.Join(cfg, "plugins/known_marketplaces.json"), `{
  "tools": {"source": {"source": "directory", "path": "`+market+`"}, "installLocation": "`+market+`"},
  "gitm": {"source": {"source": "github", "repo": "x/gitm"}, "installLocation": "`+filepath.Join(cfg, "plugins/marketplaces/gitm")+`"}
}`)
	write(filepath.Join(cfg, "skills/tool/.claude-plugin/plugin.json"), `{"name":"tool","version":"0.1.0"}`)
	write(filepath.Join(cfg, "skills/tool/SKILL.md"), "tool itself")
	write(filepath.Join(cfg, "skills/tool/skills/sub/SKILL.md"), "tool sub")
	return home, cfg, cwd, market
}

func TestPluginAttribution(t *testing.T) {
	home, cfg, cwd, market := pluginTree(t)
	src := filepath.Join(market, "plugins/acme")
	for _, tc := range []struct {
		name      string
		payload   map[string]any
		skill     string
		path      string
		content   string
		plugin    string
		pluginVer string
	}{
		{"scoped skill, directory marketplace: the source folder", skillPayload(cwd, "acme:deploy"), "acme:deploy", filepath.Join(src, "skills/deploy/SKILL.md"), "acme deploy (source)", "acme", "1.3.0"},
		{"bare name: the only plugin skill of that name", skillPayload(cwd, "deploy"), "acme:deploy", filepath.Join(src, "skills/deploy/SKILL.md"), "acme deploy (source)", "acme", "1.3.0"},
		{"a project skill wins the bare name", skillPayload(cwd, "review"), "review", filepath.Join(cwd, ".claude/skills/review/SKILL.md"), "project review", "", ""},
		{"scoped, same name as a project skill", skillPayload(cwd, "acme:review"), "acme:review", filepath.Join(src, "skills/review/SKILL.md"), "acme review", "acme", "1.3.0"},
		{"git marketplace: the cache", skillPayload(cwd, "beta:lint"), "beta:lint", filepath.Join(cfg, "plugins/cache/gitm/beta/2.0.0/skills/lint/SKILL.md"), "beta lint", "beta", "2.0.0"},
		{"a plugin command, typed", map[string]any{"session_id": "s", "hook_event_name": "UserPromptExpansion", "cwd": cwd, "expansion_type": "slash_command", "command_name": "acme:ship", "command_source": "plugin"}, "acme:ship", filepath.Join(src, "commands/ship.md"), "acme ship", "acme", "1.3.0"},
		{"a plugin agent", map[string]any{"session_id": "s", "hook_event_name": "SubagentStart", "cwd": cwd, "agent_id": "a1", "agent_type": "acme:reviewer"}, "acme:reviewer", filepath.Join(src, "agents/reviewer.md"), "acme reviewer", "acme", "1.3.0"},
		{"skills-dir plugin, its own skill", skillPayload(cwd, "tool"), "tool", filepath.Join(cfg, "skills/tool/SKILL.md"), "tool itself", "tool", "0.1.0"},
		{"skills-dir plugin, a sub-skill", skillPayload(cwd, "tool:sub"), "tool:sub", filepath.Join(cfg, "skills/tool/skills/sub/SKILL.md"), "tool sub", "tool", "0.1.0"},
		{"unknown plugin", skillPayload(cwd, "nope:deploy"), "nope:deploy", "", "", "", ""},
		{"unknown skill of a known plugin", skillPayload(cwd, "acme:nope"), "acme:nope", "", "", "", ""},
		{"a traversal in the name", skillPayload(cwd, "acme:../../../x"), "acme:../../../x", "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := enrichMap(t, tc.payload, Options{UserHome: home, ClaudeDir: cfg})
			if l.sepa.Skill != tc.skill || l.sepa.SkillPath != tc.path || l.sepa.Plugin != tc.plugin || l.sepa.PluginVersion != tc.pluginVer {
				t.Fatalf("got skill %q path %q plugin %q %q; want %q %q %q %q", l.sepa.Skill, l.sepa.SkillPath, l.sepa.Plugin, l.sepa.PluginVersion, tc.skill, tc.path, tc.plugin, tc.pluginVer)
			}
			if tc.content != "" && l.sepa.SkillVersion != version(tc.content) {
				t.Fatalf("version %q, want the hash of %q", l.sepa.SkillVersion, tc.content)
			}
		})
	}
}

func skillPayload(cwd, name string) map[string]any {
	return map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Skill", "tool_input": map[string]any{"skill": name}, "tool_use_id": "t"}
}

// TestPluginSnapshot: SessionStart records the version of every plugin
// prompt the session loads.
func TestPluginSnapshot(t *testing.T) {
	home, cfg, cwd, market := pluginTree(t)
	l := enrichMap(t, map[string]any{"session_id": "s", "hook_event_name": "SessionStart", "cwd": cwd, "source": "startup"}, Options{UserHome: home, ClaudeDir: cfg})
	want := map[string]string{
		filepath.Join(market, "plugins/acme/skills/deploy/SKILL.md"):             version("acme deploy (source)"),
		filepath.Join(market, "plugins/acme/commands/ship.md"):                   version("acme ship"),
		filepath.Join(cfg, "plugins/cache/gitm/beta/2.0.0/skills/lint/SKILL.md"): version("beta lint"),
		filepath.Join(cfg, "skills/tool/SKILL.md"):                               version("tool itself"),
		filepath.Join(cfg, "skills/tool/skills/sub/SKILL.md"):                    version("tool sub"),
	}
	for p, v := range want {
		if l.sepa.PluginPrompts[p] != v {
			t.Errorf("snapshot of %s = %q, want %q (all: %v)", p, l.sepa.PluginPrompts[p], v, l.sepa.PluginPrompts)
		}
	}
	if _, cached := l.sepa.PluginPrompts[filepath.Join(cfg, "plugins/cache/tools/acme/1.2.0/skills/deploy/SKILL.md")]; cached {
		t.Error("the cache copy of a directory marketplace's plugin was snapshot")
	}
}
