package prompt

import (
	"os"
	"path/filepath"
	"testing"
)

func TestPluginOf(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "home", ".claude")
	mk := func(p, body string) string {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	mk("acme/.claude-plugin/plugin.json", `{"name":"acme","version":"1.0.0"}`)
	mk("bare/.claude-plugin/plugin.json", `{}`)
	mk("proj/.claude-plugin/plugin.json", `{"name":"proj"}`)
	mk("home/.claude/skills/tool/.claude-plugin/plugin.json", `{"name":"tool"}`)
	for _, tc := range []struct {
		path, want, root string
	}{
		{"acme/skills/deploy/SKILL.md", "acme", "acme"},
		{"acme/commands/ship.md", "acme", "acme"},
		{"acme/agents/reviewer.md", "acme", ""},
		{"bare/skills/x/SKILL.md", "bare", ""},
		{"home/.claude/plugins/cache/tools/acme/1.2.0/skills/deploy/SKILL.md", "acme", "home/.claude/plugins/cache/tools/acme/1.2.0"},
		{"home/.claude/skills/tool/SKILL.md", "tool", "home/.claude/skills/tool"},
		{"home/.claude/skills/tool/skills/sub/SKILL.md", "tool", "home/.claude/skills/tool"},
		{"home/.claude/skills/mine/SKILL.md", "", ""},
		{"proj/.claude/skills/deploy/SKILL.md", "", ""}, // a plugin repository's own project skill
		{"other/.claude/skills/deploy/SKILL.md", "", ""},
	} {
		got, ok := PluginOf(filepath.Join(dir, tc.path), cfg)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("PluginOf(%s) = %q, %v; want %q", tc.path, got, ok, tc.want)
		}
		if _, root, _ := PluginRoot(filepath.Join(dir, tc.path), cfg); tc.root != "" && root != filepath.Join(dir, tc.root) {
			t.Errorf("PluginRoot(%s) = %q, want %q", tc.path, root, tc.root)
		}
	}
}
