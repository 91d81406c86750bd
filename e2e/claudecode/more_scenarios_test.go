package claudecode

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// The scenarios of issue 13's "Done when" beyond the first set:
// permission denial, exec-form and shell-form install, the http
// transport, compaction's internal agents, nested and parent-directory
// skills, and CLAUDE_CONFIG_DIR.
func init() {
	scenarios = append(scenarios, moreScenarios...)
}

const webDeploySkill = "---\nname: deploy\ndescription: Deploy the web app. Use when asked to deploy the web app.\n---\n# Deploy web\n\n1. Build apps/web.\n2. Ship it.\n"

// plainScript is the "plain" scenario's conversation, for the installs
// that must give the same executions.
func plainScript() fakeclaude.Script {
	return fakeclaude.Script{
		{Text: "Let me look.", Tools: []fakeclaude.Tool{bash("echo hi")}},
		{Tools: []fakeclaude.Tool{bash("exit 3")}},
		{Tools: []fakeclaude.Tool{skillCall("deploy")}},
		{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
		{Text: answer},
	}
}

func checkPlain(t *testing.T, v string, xs []scored) {
	t.Helper()
	scenarioNamed("plain").check(t, v, xs)
	if len(xs) != 2 {
		t.Errorf("want the _session and deploy executions only:\n%s", dump(xs))
	}
}

var moreScenarios = []scenario{
	{
		// In the default permission mode, -p mode cannot ask: the call is
		// denied. Neither version sends PermissionDenied or
		// PostToolUseFailure for it; 2.1.328 sends PermissionRequest
		// (no tool_use_id) between the PreToolUse and nothing. The
		// PreToolUse with no post event is a failed call
		// (docs/executions.md, "Permission denials").
		name: "permission_denied",
		run: func(e *env) {
			e.PermissionMode = "default"
			e.denyBash()
			spool := string(e.spool())
			if strings.Contains(spool, `"hook_event_name":"PermissionDenied"`) || strings.Contains(spool, `"hook_event_name":"PostToolUseFailure"`) {
				e.t.Logf("a denial now fires PermissionDenied or PostToolUseFailure: update docs/claude-code.md")
			}
		},
		check: checkDenied,
	},
	{
		// In plan mode the Bash call goes to the auto mode's classifier,
		// which the fake server cannot answer: 2.1.328 denies it with a
		// PermissionDenied (tool_use_id, reason "Classifier unavailable");
		// 2.1.197 denies it with no event. Either way no post event: a
		// failed call.
		name: "permission_denied_plan",
		run: func(e *env) {
			e.PermissionMode = "plan"
			e.denyBash()
		},
		check: func(t *testing.T, v string, xs []scored) {
			if v == "2.1.197" {
				checkDenied(t, v, xs) // no event: a failed call
				return
			}
			// PermissionDenied names the call: refused, neither a
			// success nor a failure of the prompt (rubric 4.1.0).
			s := one(t, xs, "_session")
			if s.ToolCalls != 2 || s.ToolFailures != 0 || s.Denied != 1 || s.Errors != 0 || !s.Complete || !s.HasOutput {
				t.Errorf("_session: %d calls %d failed %d refused %d errors; want 2 calls, the denied one refused, no failure\n%s", s.ToolCalls, s.ToolFailures, s.Denied, s.Errors, dump(xs))
			}
		},
		spoolCheck: func(t *testing.T, spool []byte) {
			if n := bytes.Count(spool, []byte(`"hook_event_name":"PermissionDenied"`)); n > 1 {
				t.Errorf("%d PermissionDenied lines, want at most 1", n)
			}
		},
	},
	{
		// `sepad install --shell-form` (a command line run by /bin/sh)
		// records what the default exec form records.
		name: "install_shell_form",
		run: func(e *env) {
			e.reinstall("--shell-form")
			b, err := os.ReadFile(filepath.Join(e.Project, ".claude", "settings.json"))
			if err != nil {
				e.t.Fatal(err)
			}
			if bytes.Contains(b, []byte(`"args"`)) || !bytes.Contains(b, []byte(` hook"`)) {
				e.t.Fatalf("not a shell-form install:\n%s", b)
			}
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.API.Set("plain", plainScript())
			e.claude("-p", "look around, then deploy @@plain@@")

			// The same session with the exec-form install.
			x := newEnv(e.t, e.c)
			x.write(".claude/skills/deploy/SKILL.md", deploySkill)
			x.API.Set("plain", plainScript())
			x.claude("-p", "look around, then deploy @@plain@@")
			shell := score(e.t, filepath.Join(e.State, "events.jsonl"))
			exec := score(e.t, filepath.Join(x.State, "events.jsonl"))
			if a, b := shapes(shell), shapes(exec); a != b {
				e.t.Errorf("shell form and exec form differ:\nshell:\n%s\nexec:\n%s", a, b)
			}
		},
		check: checkPlain,
	},
	{
		// The http transport: every event but SessionStart goes to a
		// running `sepad run --http`, which appends it to its spool; the
		// daemon's store must hold what `sepad score` finds there, with
		// no ERROR in its log.
		name: "http_transport",
		run: func(e *env) {
			addr := freeAddr(e.t)
			e.uninstall()
			out, errOut, code := e.sepad("install", "--project", e.Project, "--transport", "http", "--url", "http://"+addr+"/v1/hook")
			if code != 0 {
				e.t.Fatalf("sepad install --transport http: exit %d\n%s%s", code, out, errOut)
			}
			if !strings.Contains(out, "export SEPAD_SECRET=") {
				e.t.Errorf("install does not say how to give Claude Code the secret:\n%s", out)
			}
			secret, err := os.ReadFile(filepath.Join(e.State, "http.secret"))
			if err != nil {
				e.t.Fatalf("the secret install made: %v", err)
			}
			e.Extra = append(e.Extra, "SEPAD_SECRET="+strings.TrimSpace(string(secret)))
			d := e.startDaemon("--http", addr)
			// doctor checks the URL with the secret Claude Code would send.
			e.Env = append(e.Env, "SEPAD_SECRET="+strings.TrimSpace(string(secret)))
			if out, errOut, code := e.sepad("doctor", "--project", e.Project); code != 0 || strings.Contains(out, "FAIL") {
				e.t.Errorf("sepad doctor with the daemon up and the secret set: exit %d\n%s%s", code, out, errOut)
			} else if testing.Verbose() {
				e.t.Logf("sepad doctor:\n%s", out)
			}
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.API.Set("plain", plainScript())
			e.claude("-p", "look around, then deploy @@plain@@")
			spool := string(e.spool())
			for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"} {
				if !strings.Contains(spool, `"hook_event_name":"`+ev+`"`) {
					e.t.Errorf("no %s reached the spool", ev)
				}
			}
			want := score(e.t, filepath.Join(e.State, "events.jsonl"))
			got := d.waitExecutions(len(want))
			byID := map[string]daemonExec{}
			for _, g := range got {
				byID[g.ID] = g
			}
			if len(got) != len(want) {
				e.t.Errorf("the daemon stored %d executions, sepad score finds %d", len(got), len(want))
			}
			for _, w := range want {
				g, ok := byID[w.ID]
				if !ok || g.Skill != w.Skill || g.Score == nil || fmt.Sprintf("%.2f", *g.Score) != fmt.Sprintf("%.2f", w.Score) {
					e.t.Errorf("execution %s (%s, %.2f) is not in the daemon's store as scored: %+v", w.ID, w.Skill, w.Score, g)
				}
			}
			if log := d.stop(); strings.Contains(log, "level=ERROR") {
				e.t.Errorf("the daemon logged an error:\n%s", log)
			}
		},
		check: checkPlain,
	},
	{
		// `/compact` (typed as the prompt of a resumed session) runs
		// Claude Code's internal agents: SubagentStop with an empty
		// agent_type and no SubagentStart. They make no execution.
		name: "compaction",
		run: func(e *env) {
			e.API.Set("compact", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo one")}},
				{Text: answer},
			})
			// After the compaction the conversation keeps some assistant
			// messages of before (1 on 2.1.328, 2 on 2.1.197): the next
			// prompt's script counts from its own first request.
			e.API.SetRelative("after", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("exit 2")}},
				{Text: answer},
			})
			out, _ := e.claude("-p", "start @@compact@@")
			id := sessionID(e.t, out)
			out, _ = e.claude("-p", "/compact", "--resume", id)
			if !strings.Contains(out, `"compact_result":"success"`) {
				e.t.Fatalf("no compaction:\n%s", out)
			}
			e.claude("-p", "go on @@after@@", "--resume", id)
			if !strings.Contains(string(e.spool()), `"agent_type":""`) {
				e.t.Errorf("no internal agent in the spool")
			}
		},
		check: func(t *testing.T, v string, xs []scored) {
			if len(bySkill(xs, "_agent")) != 0 || len(bySkill(xs, "")) != 0 {
				t.Errorf("compaction's internal agents were graded:\n%s", dump(xs))
			}
			s := bySkill(xs, "_session")
			if len(s) != 2 || s[0].ToolCalls+s[1].ToolCalls != 2 || s[0].ToolFailures+s[1].ToolFailures != 1 {
				t.Errorf("want the two prompts' _session executions (2 calls, 1 failed):\n%s", dump(xs))
			}
			// A /compact typed between turns cuts no execution.
			for _, x := range xs {
				if x.Compactions != 0 {
					t.Errorf("an execution marked compacted by a /compact between turns:\n%s", dump(xs))
				}
			}
		},
		spoolCheck: func(t *testing.T, spool []byte) {
			if !bytes.Contains(spool, []byte(`"hook_event_name":"PreCompact"`)) && !bytes.Contains(spool, []byte(`"hook_event_name":"SessionStart","source":"compact"`)) {
				t.Errorf("no compaction in the spool")
			}
		},
	},
	{
		// A 400 "prompt is too long" makes 2.1.328 compact and retry
		// (internal agents again); 2.1.197 does not compact then: its
		// turn ends in a StopFailure that reaches the hook after the
		// SessionEnd, so sepad sees an incomplete turn.
		name: "compaction_too_long",
		run: func(e *env) {
			e.API.Set("toolong", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo one")}},
				{Status: 400, ErrorMessage: "prompt is too long: 250000 tokens > 200000 maximum"},
			})
			e.claude("-p", "start @@toolong@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			if len(bySkill(xs, "_agent")) != 0 || len(bySkill(xs, "")) != 0 {
				t.Errorf("compaction's internal agents were graded:\n%s", dump(xs))
			}
			s := one(t, xs, "_session")
			if s.ToolCalls != 1 || s.ToolFailures != 0 {
				t.Errorf("_session: %+v", s)
			}
			if v != "2.1.197" && (!s.Complete || !s.HasOutput) {
				t.Errorf("the turn goes on after the compaction: %+v", s)
			}
			// The compaction mid-turn cut the execution: it says so
			// (PreCompact, trigger auto). 2.1.197 sends the PreCompact
			// too, then ends the turn instead of going on.
			if s.Compactions != 1 {
				t.Errorf("_session: %d compactions, want 1\n%s", s.Compactions, dump(xs))
			}
		},
	},
	{
		// The compaction itself fails ("prompt is too long" to every
		// request without the marker: the summaries). 2.1.328 sends a
		// StopFailure for each internal agent (agent_id, no agent_type,
		// no SubagentStart) and one for the turn; 2.1.197 does not
		// compact and sends the turn's StopFailure alone. The turn's
		// execution records the error; the agents make none.
		name: "compaction_fails",
		run: func(e *env) {
			tooLong := fakeclaude.Step{Status: 400, ErrorMessage: "prompt is too long: 250000 tokens > 200000 maximum"}
			e.API.Set("toolong", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo one")}},
				tooLong,
			})
			e.API.Set("", fakeclaude.Script{tooLong, tooLong, tooLong, tooLong, tooLong, tooLong})
			e.claude("-p", "start @@toolong@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			if len(xs) != 1 {
				t.Errorf("compaction's internal agents were graded:\n%s", dump(xs))
			}
			s := one(t, xs, "_session")
			if s.ToolCalls != 1 || s.HasOutput {
				t.Errorf("_session: %+v", s)
			}
			if s.StopError == "" && s.Complete {
				t.Errorf("the turn's API error is not recorded: %+v", s)
			}
		},
	},
	{
		// apps/web/.claude/skills/deploy, discovered once a file under
		// apps/web is read, invoked as `deploy`.
		name: "nested_skill",
		run: func(e *env) {
			e.write("apps/web/.claude/skills/deploy/SKILL.md", webDeploySkill)
			e.write("apps/web/index.js", "console.log('web')\n")
			e.API.Set("nested", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{{Name: "Read", Input: map[string]any{"file_path": filepath.Join(e.Project, "apps/web/index.js")}}}},
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo built web")}},
				{Text: answer},
			})
			e.claude("-p", "deploy the web app @@nested@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			d := one(t, xs, "deploy")
			if !strings.HasSuffix(d.SkillPath, "/apps/web/.claude/skills/deploy/SKILL.md") || d.SkillVersion == "" {
				t.Errorf("the nested skill is not resolved: %+v", d)
			}
			if d.ToolCalls != 2 || d.ToolFailures != 0 || !d.HasOutput {
				t.Errorf("deploy: %+v", d)
			}
		},
	},
	{
		// With a root-level deploy too, the nested one is `apps/web:deploy`.
		name: "nested_skill_scoped",
		run: func(e *env) {
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.write("apps/web/.claude/skills/deploy/SKILL.md", webDeploySkill)
			e.write("apps/web/index.js", "console.log('web')\n")
			e.API.Set("scoped", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{{Name: "Read", Input: map[string]any{"file_path": filepath.Join(e.Project, "apps/web/index.js")}}}},
				{Tools: []fakeclaude.Tool{skillCall("apps/web:deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo built web")}},
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo shipped root")}},
				{Text: answer},
			})
			e.claude("-p", "deploy both @@scoped@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			w := one(t, xs, "apps/web:deploy")
			if !strings.HasSuffix(w.SkillPath, "/apps/web/.claude/skills/deploy/SKILL.md") || w.SkillVersion == "" || w.ToolCalls != 2 || w.ToolFailures != 0 {
				t.Errorf("apps/web:deploy: %+v", w)
			}
			r := one(t, xs, "deploy")
			if !strings.HasSuffix(r.SkillPath, "/proj/.claude/skills/deploy/SKILL.md") || r.SkillVersion == "" || r.SkillVersion == w.SkillVersion {
				t.Errorf("the root deploy: %+v", r)
			}
		},
	},
	{
		// The nested skill typed as `/apps/web:deploy now` in the turn
		// after a file under apps/web was read. 2.1.197 sends the
		// UserPromptExpansion before the UserPromptSubmit (same
		// prompt_id), 2.1.328 after; a name with a '/' is no command
		// name to the prompt's grammar, so only the expansion tells.
		name: "nested_skill_typed",
		run: func(e *env) {
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.write("apps/web/.claude/skills/deploy/SKILL.md", webDeploySkill)
			e.write("apps/web/index.js", "console.log('web')\n")
			e.API.Set("typednested", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{{Name: "Read", Input: map[string]any{"file_path": filepath.Join(e.Project, "apps/web/index.js")}}}},
				{Text: "It logs 'web'."},
				{Tools: []fakeclaude.Tool{bash("echo built web")}},
				{Text: answer},
			})
			e.streamTurns([]string{"look at the web app @@typednested@@", "/apps/web:deploy now"})
		},
		check: func(t *testing.T, v string, xs []scored) {
			w := one(t, xs, "apps/web:deploy")
			if !strings.HasSuffix(w.SkillPath, "/apps/web/.claude/skills/deploy/SKILL.md") || w.SkillVersion == "" || w.ToolCalls != 1 || !w.HasOutput {
				t.Errorf("the typed nested skill: %+v\n%s", w, dump(xs))
			}
			s := one(t, xs, "_session")
			if s.ToolCalls != 1 {
				t.Errorf("_session (the first turn's Read): %+v", s)
			}
		},
	},
	{
		// A cwd outside any repository: Claude Code loads the skills of
		// the parent directories' .claude/skills (up to the home).
		name: "parent_dir_skill",
		run: func(e *env) {
			if err := os.RemoveAll(filepath.Join(e.Project, ".git")); err != nil {
				e.t.Fatal(err)
			}
			e.write(".claude/skills/release/SKILL.md", "---\nname: release\ndescription: Cut a release. Use when asked to release.\n---\n# Release\n\nTag and push.\n")
			e.Cwd = filepath.Join(e.Project, "services", "api")
			e.write("services/api/main.go", "package main\n")
			e.uninstall()
			if out, errOut, code := e.sepad("install", "--project", e.Cwd); code != 0 {
				e.t.Fatalf("sepad install --project %s: exit %d\n%s%s", e.Cwd, code, out, errOut)
			}
			e.API.Set("parent", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("release")}},
				{Tools: []fakeclaude.Tool{bash("echo tagged")}},
				{Text: answer},
			})
			e.claude("-p", "release it @@parent@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			r := one(t, xs, "release")
			if !strings.HasSuffix(r.SkillPath, "/proj/.claude/skills/release/SKILL.md") || r.SkillVersion == "" || r.ToolCalls != 2 || r.ToolFailures != 0 {
				t.Errorf("the parent directory's skill is not resolved: %+v", r)
			}
		},
	},
	{
		// CLAUDE_CONFIG_DIR replaces ~/.claude: `sepad install --user`
		// writes its settings.json, sessions with it set record events,
		// and a user skill and a user agent in it resolve.
		name: "config_dir",
		run: func(e *env) {
			cfg := filepath.Join(e.Root, "ccconfig")
			e.Env = append(e.Env, "CLAUDE_CONFIG_DIR="+cfg)
			e.uninstall()
			if out, errOut, code := e.sepad("install", "--user"); code != 0 {
				e.t.Fatalf("sepad install --user: exit %d\n%s%s", code, out, errOut)
			}
			if b, err := os.ReadFile(filepath.Join(cfg, "settings.json")); err != nil || !bytes.Contains(b, []byte(hookBin)) {
				e.t.Fatalf("install --user did not write $CLAUDE_CONFIG_DIR/settings.json: %v\n%s", err, b)
			}
			if _, err := os.Stat(filepath.Join(e.Home, ".claude", "settings.json")); err == nil {
				e.t.Errorf("install --user wrote ~/.claude/settings.json with CLAUDE_CONFIG_DIR set")
			}
			e.write(filepath.Join(cfg, "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: Write release notes. Use when asked for notes.\n---\n# Notes\n\nList the changes.\n")
			e.write(filepath.Join(cfg, "agents", "checker.md"), "---\nname: checker\ndescription: Checks notes.\n---\nYou check release notes.\n")
			e.API.Set("cfgdir", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("notes")}},
				{Tools: []fakeclaude.Tool{bash("echo notes")}},
				{Tools: []fakeclaude.Tool{{Name: "Agent", Input: map[string]any{"description": "check", "prompt": "check the notes @@cfgsub@@", "subagent_type": "checker", "run_in_background": false}}}},
				{Text: answer},
			})
			e.API.Set("cfgsub", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo checking")}},
				{Text: "## Check\n\n- fine\n"},
			})
			// doctor finds the user install under $CLAUDE_CONFIG_DIR (the
			// project has none now).
			if out, errOut, code := e.sepad("doctor"); !regexp.MustCompile(`OK +the hook is installed`).MatchString(out) {
				e.t.Errorf("sepad doctor (exit %d) does not find the hook in $CLAUDE_CONFIG_DIR/settings.json:\n%s%s", code, out, errOut)
			}
			e.claude("-p", "write notes @@cfgdir@@")
			if _, err := os.Stat(filepath.Join(cfg, "projects")); err != nil {
				e.t.Errorf("Claude Code did not use CLAUDE_CONFIG_DIR: %v", err)
			}
		},
		check: func(t *testing.T, v string, xs []scored) {
			n := one(t, xs, "notes")
			if !strings.HasSuffix(n.SkillPath, "/ccconfig/skills/notes/SKILL.md") || n.SkillVersion == "" || n.ToolCalls != 3 || n.ToolFailures != 0 || !n.HasOutput {
				t.Errorf("the $CLAUDE_CONFIG_DIR skill: %+v", n)
			}
			c := one(t, xs, "checker")
			if !strings.HasSuffix(c.SkillPath, "/ccconfig/agents/checker.md") || c.SkillVersion == "" || c.ToolCalls != 1 || !c.HasOutput {
				t.Errorf("the $CLAUDE_CONFIG_DIR agent: %+v", c)
			}
		},
	},
}

// denyBash runs a session whose first call, a Bash command that writes a
// file, is denied in the env's permission mode, and checks it was. It
// listens for the permission events sepad does not install itself for,
// to see which fire.
func (e *env) denyBash() {
	e.t.Helper()
	h := func(ev string) string {
		return fmt.Sprintf(`%q:[{"matcher":"*","hooks":[{"type":"command","command":%q,"args":["hook"]}]}]`, ev, hookBin)
	}
	// PermissionDenied is sepad's own since issue 37 item 5.
	e.write(".claude/settings.local.json", `{"hooks":{`+h("PermissionRequest")+`}}`)
	e.write("README", "hello\n")
	e.API.Set("deny", fakeclaude.Script{
		{Tools: []fakeclaude.Tool{bash("touch created.txt")}},
		{Tools: []fakeclaude.Tool{{Name: "Read", Input: map[string]any{"file_path": filepath.Join(e.Project, "README")}}}},
		{Text: answer},
	})
	out, _ := e.claude("-p", "make a file @@deny@@")
	if _, err := os.Stat(filepath.Join(e.Project, "created.txt")); err == nil {
		e.t.Fatalf("the Bash call was not denied:\n%s", out)
	}
	if !strings.Contains(out, `"permission_denials":[{`) {
		e.t.Errorf("claude reports no permission denial:\n%s", out)
	}
}

// checkDenied: the denied call is a failed call of the turn, which goes
// on to its answer.
func checkDenied(t *testing.T, v string, xs []scored) {
	t.Helper()
	s := one(t, xs, "_session")
	if s.ToolCalls != 2 || s.ToolFailures != 1 || !s.Complete || !s.HasOutput {
		t.Errorf("_session: %d calls %d failed complete=%v output=%v; want 2 calls, the denied one failed\n%s", s.ToolCalls, s.ToolFailures, s.Complete, s.HasOutput, dump(xs))
	}
}

// shapes is what two runs of the same conversation must share: every
// execution's skill, prompt file, calls, failures and outcome (not its
// IDs, times or score, which follow the times).
func shapes(xs []scored) string {
	var b strings.Builder
	for _, x := range xs {
		fmt.Fprintf(&b, "%s %s calls=%d failed=%d errors=%d retries=%d complete=%v output=%v\n",
			x.Skill, x.SkillVersion, x.ToolCalls, x.ToolFailures, x.Errors, x.Retries, x.Complete, x.HasOutput)
	}
	return b.String()
}

// uninstall removes the project install newEnv made.
func (e *env) uninstall() {
	e.t.Helper()
	if out, errOut, code := e.sepad("uninstall", "--project", e.Project); code != 0 {
		e.t.Fatalf("sepad uninstall: exit %d\n%s%s", code, out, errOut)
	}
}

// reinstall replaces the project install with one made with args.
func (e *env) reinstall(args ...string) {
	e.t.Helper()
	e.uninstall()
	args = append([]string{"install", "--project", e.Project}, args...)
	if out, errOut, code := e.sepad(args...); code != 0 {
		e.t.Fatalf("sepad %v: exit %d\n%s%s", args, code, out, errOut)
	}
}
