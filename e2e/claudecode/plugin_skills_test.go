package claudecode

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// Plugin prompts on the real client: a plugin's skill called by the model
// (scoped and bare), typed as /plugin:skill, a plugin agent, a plugin
// installed from a directory marketplace, and an edit to a plugin's
// SKILL.md in the middle of a session.

func init() {
	scenarios = append(scenarios, pluginSkillScenarios...)
}

const acmeDeploy = "---\nname: deploy\ndescription: Deploy the app the acme way. Use when asked to deploy.\n---\n# Deploy (acme)\n\n1. Run the checks.\n2. Ship it.\n"

// writeAcme writes the test plugin acme (version 1.2.0) into dir, with
// extra text appended to its deploy skill, and returns dir.
func (e *env) writeAcme(dir, extra string) string {
	e.t.Helper()
	e.write(filepath.Join(dir, ".claude-plugin", "plugin.json"), `{"name":"acme","version":"1.2.0","description":"Test plugin"}`+"\n")
	e.write(filepath.Join(dir, "skills", "deploy", "SKILL.md"), acmeDeploy+extra)
	e.write(filepath.Join(dir, "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code the acme way.\n---\nYou review code.\n")
	return dir
}

// checkAcme checks that every execution of acme:deploy is charged to the
// plugin's prompt file, and returns them.
func checkAcme(t *testing.T, xs []scored, name string, n int) []scored {
	t.Helper()
	got := bySkill(xs, name)
	if len(got) != n {
		t.Fatalf("want %d executions of %s, got %d:\n%s", n, name, len(got), dump(xs))
	}
	for _, x := range got {
		if x.Plugin != "acme" || x.PluginVersion != "1.2.0" || x.SkillVersion == "" || !strings.Contains(x.SkillPath, "acme") {
			t.Errorf("%s not charged to the plugin's prompt: %+v", name, x)
		}
	}
	return got
}

var pluginSkillScenarios = []scenario{
	{
		name:     "plugin_skill",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			dir := e.writeAcme(filepath.Join(e.Root, "acme"), "")
			e.API.Set("pskill", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("acme:deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				{Text: answer},
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("exit 1")}},
				{Text: answer},
			})
			e.streamTurnsArgs([]string{"deploy @@pskill@@", "deploy again"}, "--plugin-dir", dir)
		},
		check: func(t *testing.T, v string, xs []scored) {
			got := checkAcme(t, xs, "acme:deploy", 2)
			if got[0].SkillVersion != got[1].SkillVersion || got[0].SkillPath != got[1].SkillPath {
				t.Errorf("the scoped and the bare call resolved differently:\n%s", dump(got))
			}
			if len(bySkill(xs, "deploy")) != 0 {
				t.Errorf("the bare call was not charged to acme:deploy:\n%s", dump(xs))
			}
		},
	},
	{
		name:     "plugin_skill_typed",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			dir := e.writeAcme(filepath.Join(e.Root, "acme"), "\n@@ptyped@@\n")
			e.API.Set("ptyped", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				{Text: answer},
			})
			e.claude("-p", "/acme:deploy now", "--plugin-dir", dir)
		},
		check: func(t *testing.T, v string, xs []scored) {
			d := checkAcme(t, xs, "acme:deploy", 1)[0]
			if d.ToolCalls != 1 || !d.HasOutput {
				t.Errorf("acme:deploy: %+v", d)
			}
		},
	},
	{
		name:     "plugin_agent",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			dir := e.writeAcme(filepath.Join(e.Root, "acme"), "")
			e.API.Set("pagent", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{{Name: "Agent", Input: map[string]any{"description": "review", "prompt": "review the code @@pagentsub@@", "subagent_type": "acme:reviewer", "run_in_background": false}}}},
				{Text: answer},
			})
			e.API.Set("pagentsub", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo reviewing")}},
				{Text: "## Review\n\n- fine\n"},
			})
			e.claude("-p", "get a review @@pagent@@", "--plugin-dir", dir)
		},
		check: func(t *testing.T, v string, xs []scored) {
			r := checkAcme(t, xs, "acme:reviewer", 1)[0]
			if r.Kind != "agent" || !strings.HasSuffix(r.SkillPath, filepath.Join("agents", "reviewer.md")) {
				t.Errorf("acme:reviewer: %+v", r)
			}
		},
	},
	{
		name:     "plugin_skill_installed",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			market := filepath.Join(e.Root, "market")
			e.write(filepath.Join(market, ".claude-plugin", "marketplace.json"),
				`{"name":"tools","owner":{"name":"test"},"plugins":[{"name":"acme","source":"./acme","description":"Test plugin"}]}`+"\n")
			e.writeAcme(filepath.Join(market, "acme"), "")
			e.claudeCLI("plugin", "marketplace", "add", market)
			e.claudeCLI("plugin", "install", "acme@tools")
			e.API.Set("pinst", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("acme:deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				{Text: answer},
			})
			e.claude("-p", "deploy @@pinst@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			d := checkAcme(t, xs, "acme:deploy", 1)[0]
			// A directory marketplace's plugin is read from its source
			// folder, not from the cache copy.
			if !strings.Contains(d.SkillPath, "/market/acme/") {
				t.Errorf("acme:deploy resolved to %s, not the marketplace's source folder", d.SkillPath)
			}
		},
	},
	{
		name:     "plugin_skill_edited",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			dir := e.writeAcme(filepath.Join(e.Root, "acme"), "")
			e.API.Set("pedit", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("acme:deploy")}},
				{Text: answer},
				{Tools: []fakeclaude.Tool{skillCall("acme:deploy")}},
				{Text: answer},
			})
			s := e.startStreamArgs("--plugin-dir", dir)
			s.send("deploy @@pedit@@")
			e.waitCount(`"hook_event_name":"Stop"`, 1)
			// Edited mid-session: Claude Code keeps what it loaded.
			if err := os.WriteFile(filepath.Join(dir, "skills", "deploy", "SKILL.md"), []byte(acmeDeploy+"\n3. Tell the team.\n"), 0o644); err != nil {
				e.t.Fatal(err)
			}
			s.send("deploy again")
			e.waitCount(`"hook_event_name":"Stop"`, 2)
			s.end()
		},
		check: func(t *testing.T, v string, xs []scored) {
			got := checkAcme(t, xs, "acme:deploy", 2)
			if got[0].SkillVersion != got[1].SkillVersion {
				t.Errorf("the call after the edit was charged to the edited file, not the loaded version:\n%s", dump(got))
			}
		},
		spoolCheck: func(t *testing.T, spool []byte) {
			// The hook saw the edit: the second call's line hashes the
			// new content, and the session's SessionStart the old one.
			if n := strings.Count(string(spool), `"plugin_prompts":{`); n != 1 {
				t.Errorf("%d SessionStart snapshots of the plugin prompts, want 1", n)
			}
		},
	},
}
