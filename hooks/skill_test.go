package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// skillTree builds a user home and a repository with a nested working
// directory, and returns (userHome, repo, cwd).
func skillTree(t testing.TB) (string, string, string) {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", "") // the user's own must not leak in
	base := t.TempDir()
	home := filepath.Join(base, "home")
	repo := filepath.Join(base, "src", "shop")
	cwd := filepath.Join(repo, "svc", "api")
	write := func(p, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(cwd, 0o755)
	write(filepath.Join(repo, ".claude/skills/review/SKILL.md"), "repo review v1")
	write(filepath.Join(repo, "svc/.claude/skills/review/SKILL.md"), "svc review v1")
	write(filepath.Join(repo, ".claude/skills/deploy/SKILL.md"), "repo deploy")
	write(filepath.Join(home, ".claude/skills/deploy/SKILL.md"), "user deploy")
	write(filepath.Join(repo, ".claude/commands/fmt.md"), "repo fmt command")
	write(filepath.Join(home, ".claude/commands/standup.md"), "user standup command")
	write(filepath.Join(repo, ".claude/agents/code-reviewer.md"), "---\nname: code-reviewer\n---\nrepo agent")
	write(filepath.Join(home, ".claude/agents/code-reviewer.md"), "user agent")
	write(filepath.Join(home, ".claude/agents/helper-file.md"), "---\ndescription: x\nname: \"db-expert\"\n---\nbody")
	// Nested below the repo root: found by the bare name or as apps/web:NAME.
	write(filepath.Join(repo, "apps/web/.claude/skills/nested/SKILL.md"), "nested skill")
	write(filepath.Join(repo, "apps/web/.claude/skills/deploy/SKILL.md"), "nested deploy")
	// Above the repo root: never searched.
	write(filepath.Join(base, "src", ".claude/skills/outside/SKILL.md"), "outside")
	// A secret next to the roots, that a traversal would reach.
	write(filepath.Join(repo, ".claude/secret/SKILL.md"), "secret")
	write(filepath.Join(repo, ".claude/skills.md"), "secret2")
	return home, repo, cwd
}

func version(content string) string {
	s := sha256.Sum256([]byte(content))
	return hex.EncodeToString(s[:6])
}

func enrichMap(t *testing.T, p map[string]any, opts Options) line {
	t.Helper()
	in, _ := json.Marshal(p)
	l := decode(t, Enrich(in, t0, opts))
	if l.err != nil {
		t.Fatalf("ParseLine: %v: %s", l.err, l.raw)
	}
	return l
}

func TestSkillAttribution(t *testing.T) {
	home, repo, cwd := skillTree(t)
	opts := Options{UserHome: home}
	tool := func(ev, name string, in map[string]any) map[string]any {
		return map[string]any{"session_id": "s", "hook_event_name": ev, "cwd": cwd, "tool_name": name, "tool_input": in}
	}
	for _, tc := range []struct {
		name    string
		payload map[string]any
		skill   string
		path    string // relative to base of repo or home; "" = not resolved
		content string
	}{
		{"skill tool, nearest project level", tool("PreToolUse", "Skill", map[string]any{"skill": "review"}), "review", filepath.Join(repo, "svc/.claude/skills/review/SKILL.md"), "svc review v1"},
		{"old command field", tool("PostToolUse", "Skill", map[string]any{"command": "/review"}), "review", filepath.Join(repo, "svc/.claude/skills/review/SKILL.md"), "svc review v1"},
		{"user skill beats project", tool("PostToolUseFailure", "Skill", map[string]any{"skill": "deploy"}), "deploy", filepath.Join(home, ".claude/skills/deploy/SKILL.md"), "user deploy"},
		{"slash command in prompt", map[string]any{"session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": cwd, "prompt": "  /fmt all files"}, "fmt", filepath.Join(repo, ".claude/commands/fmt.md"), "repo fmt command"},
		{"expansion", map[string]any{"session_id": "s", "hook_event_name": "UserPromptExpansion", "cwd": cwd, "command_name": "standup"}, "standup", filepath.Join(home, ".claude/commands/standup.md"), "user standup command"},
		{"a skill's shell line (2.1.332)", map[string]any{"session_id": "s", "hook_event_name": "PreSkillShellCommand", "cwd": cwd, "tool_name": "Bash", "tool_input": map[string]any{"command": "git status"}, "command_name": "review", "invoked_by": "claude"}, "review", filepath.Join(repo, "svc/.claude/skills/review/SKILL.md"), "svc review v1"},
		{"agent tool: project agent beats user", tool("PreToolUse", "Agent", map[string]any{"subagent_type": "code-reviewer", "prompt": "x"}), "code-reviewer", filepath.Join(repo, ".claude/agents/code-reviewer.md"), "---\nname: code-reviewer\n---\nrepo agent"},
		{"task tool, agent by frontmatter name", tool("PreToolUse", "Task", map[string]any{"subagent_type": "db-expert"}), "db-expert", filepath.Join(home, ".claude/agents/helper-file.md"), "---\ndescription: x\nname: \"db-expert\"\n---\nbody"},
		{"subagent start", map[string]any{"session_id": "s", "hook_event_name": "SubagentStart", "cwd": cwd, "agent_id": "a", "agent_type": "code-reviewer"}, "code-reviewer", filepath.Join(repo, ".claude/agents/code-reviewer.md"), "---\nname: code-reviewer\n---\nrepo agent"},
		{"built-in agent: name only", tool("PreToolUse", "Agent", map[string]any{"subagent_type": "general-purpose"}), "general-purpose", "", ""},
		{"not above the repo root", tool("PreToolUse", "Skill", map[string]any{"skill": "outside"}), "outside", "", ""},
		{"traversal recorded, never opened", tool("PreToolUse", "Skill", map[string]any{"skill": "../secret"}), "../secret", "", ""},
		{"dot-dot", tool("PreToolUse", "Skill", map[string]any{"skill": ".."}), "..", "", ""},
		// A leading "/" is dropped as event.SkillInvocation does; the rest is kept.
		{"absolute", tool("PreToolUse", "Skill", map[string]any{"skill": filepath.Join(repo, ".claude/secret")}), filepath.Join(repo, ".claude/secret")[1:], "", ""},
		{"backslash", tool("PreToolUse", "Skill", map[string]any{"skill": `..\secret`}), `..\secret`, "", ""},
		{"plugin namespace", tool("PreToolUse", "Skill", map[string]any{"skill": "plug:review"}), "plug:review", "", ""},
		{"NUL", tool("PreToolUse", "Skill", map[string]any{"skill": "review\x00"}), "review\x00", "", ""},
		{"other tool", tool("PreToolUse", "Bash", map[string]any{"command": "/review"}), "", "", ""},
		{"plain prompt", map[string]any{"session_id": "s", "hook_event_name": "UserPromptSubmit", "cwd": cwd, "prompt": "fix /review please"}, "", "", ""},
		{"skill input not an object", tool("PreToolUse", "Skill", nil), "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := enrichMap(t, tc.payload, opts)
			s := l.sepa
			if s.Skill != tc.skill || s.SkillPath != tc.path {
				t.Fatalf("skill %q path %q, want %q %q", s.Skill, s.SkillPath, tc.skill, tc.path)
			}
			wantV := ""
			if tc.path != "" {
				wantV = version(tc.content)
			}
			if s.SkillVersion != wantV {
				t.Fatalf("version %q, want %q", s.SkillVersion, wantV)
			}
			if s.Project != repo {
				t.Fatalf("project %q, want the repo root %q", s.Project, repo)
			}
			// The event package must read the same name back.
			if n, ok := l.ev.SkillInvocation(); ok && n != s.Skill && tc.payload["hook_event_name"] != "SubagentStart" && tc.payload["tool_name"] != "Agent" && tc.payload["tool_name"] != "Task" {
				t.Fatalf("event.SkillInvocation = %q, sepa.skill = %q", n, s.Skill)
			}
		})
	}
}

func TestSkillVersionFollowsContent(t *testing.T) {
	home, repo, cwd := skillTree(t)
	p := map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Skill", "tool_input": map[string]any{"skill": "review"}}
	v1 := enrichMap(t, p, Options{UserHome: home}).sepa.SkillVersion
	os.WriteFile(filepath.Join(repo, "svc/.claude/skills/review/SKILL.md"), []byte("svc review v2"), 0o644)
	v2 := enrichMap(t, p, Options{UserHome: home}).sepa.SkillVersion
	if v1 == v2 || v2 != version("svc review v2") {
		t.Fatalf("versions %q then %q", v1, v2)
	}
	if n := enrichMap(t, p, Options{UserHome: home, NoFiles: true}); n.sepa.SkillPath != "" || n.sepa.Skill != "review" || n.sepa.Project != cwd {
		t.Fatalf("NoFiles still resolved: %+v", n.sepa)
	}
}

func TestSkillSymlinks(t *testing.T) {
	home, repo, cwd := skillTree(t)
	dotfiles := filepath.Join(t.TempDir(), "dotfiles", "linked")
	os.MkdirAll(dotfiles, 0o755)
	os.WriteFile(filepath.Join(dotfiles, "SKILL.md"), []byte("linked skill"), 0o644)
	if err := os.Symlink(dotfiles, filepath.Join(home, ".claude/skills/linked")); err != nil {
		t.Fatal(err)
	}
	// A symlinked skill directory is followed (the user put it there) and
	// recorded under its path in the root.
	p := map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Skill", "tool_input": map[string]any{"skill": "linked"}}
	s := enrichMap(t, p, Options{UserHome: home}).sepa
	if s.SkillPath != filepath.Join(home, ".claude/skills/linked/SKILL.md") || s.SkillVersion != version("linked skill") {
		t.Fatalf("symlinked skill: %+v", s)
	}
	// A project's SKILL.md that is a link out of the project (a cloned
	// repository can hold any link: here to a secret of the user's) is
	// recorded as such, without the target's hash (docs/security.md).
	secret := filepath.Join(t.TempDir(), "token")
	os.WriteFile(secret, []byte("hunter2"), 0o600)
	os.MkdirAll(filepath.Join(repo, ".claude/skills/filelink"), 0o755)
	if err := os.Symlink(secret, filepath.Join(repo, ".claude/skills/filelink/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	p["tool_input"] = map[string]any{"skill": "filelink"}
	l := enrichMap(t, p, Options{UserHome: home})
	s = l.sepa
	if s.SkillPath != filepath.Join(repo, ".claude/skills/filelink/SKILL.md") || s.SkillVersion != "" || s.SkillLink != "outside_project" || strings.Contains(string(l.raw), version("hunter2")) {
		t.Fatalf("a link out of the project: %+v\n%s", s, l.raw)
	}
	// So is a skill directory linked out of the project.
	if err := os.Symlink(dotfiles, filepath.Join(repo, ".claude/skills/dirlink")); err != nil {
		t.Fatal(err)
	}
	p["tool_input"] = map[string]any{"skill": "dirlink"}
	if s = enrichMap(t, p, Options{UserHome: home}).sepa; s.SkillVersion != "" || s.SkillLink != "outside_project" {
		t.Fatalf("a directory linked out of the project: %+v", s)
	}
	// A project's link that stays in the project is followed and hashed.
	os.MkdirAll(filepath.Join(repo, "docs"), 0o755)
	os.WriteFile(filepath.Join(repo, "docs", "in.md"), []byte("inside skill"), 0o644)
	os.MkdirAll(filepath.Join(repo, ".claude/skills/inlink"), 0o755)
	os.Symlink(filepath.Join("..", "..", "..", "docs", "in.md"), filepath.Join(repo, ".claude/skills/inlink/SKILL.md"))
	p["tool_input"] = map[string]any{"skill": "inlink"}
	if s = enrichMap(t, p, Options{UserHome: home}).sepa; s.SkillVersion != version("inside skill") || s.SkillLink != "" {
		t.Fatalf("a link inside the project: %+v", s)
	}
	// A dangling link is no file.
	os.MkdirAll(filepath.Join(repo, ".claude/skills/dangling"), 0o755)
	os.Symlink(filepath.Join(dotfiles, "missing.md"), filepath.Join(repo, ".claude/skills/dangling/SKILL.md"))
	p["tool_input"] = map[string]any{"skill": "dangling"}
	if s = enrichMap(t, p, Options{UserHome: home}).sepa; s.SkillPath != "" || s.Skill != "dangling" {
		t.Fatalf("dangling link: %+v", s)
	}
}

func TestNormalizePath(t *testing.T) {
	for _, tc := range []struct {
		in, goos, want string
	}{
		{`C:\Users\ana\src\shop`, "windows", "C:/Users/ana/src/shop"},
		{`c:/Users/ana/src/shop/`, "windows", "C:/Users/ana/src/shop"},
		{`C:\Users\ana\src\shop`, "linux", "C:/Users/ana/src/shop"},
		{`C:\`, "linux", "C:/"},
		{`C:`, "windows", "C:/"},
		{`\\?\C:\Users\ana`, "windows", "C:/Users/ana"},
		{`/c/Users/ana/src`, "windows", "C:/Users/ana/src"},
		{`/cygdrive/d/work`, "windows", "D:/work"},
		{`/c/Users/ana/src`, "linux", "/c/Users/ana/src"},
		{`/mnt/c/Users/ana`, "linux", "/mnt/c/Users/ana"},
		{`\\server\share\dir\`, "windows", "//server/share/dir"},
		{`/home/ana/src/./shop/../shop/`, "linux", "/home/ana/src/shop"},
		{`  /home/ana  `, "darwin", "/home/ana"},
		{``, "linux", ""},
		{`/cc/x`, "windows", "/cc/x"},
	} {
		if got := NormalizePath(tc.in, tc.goos); got != tc.want {
			t.Errorf("NormalizePath(%q, %s) = %q, want %q", tc.in, tc.goos, got, tc.want)
		}
	}
}

func TestProjectForEveryEvent(t *testing.T) {
	_, repo, cwd := skillTree(t)
	for _, tc := range []struct {
		cwd, goos, want string
	}{
		{cwd, "", repo},
		{filepath.Join(t.TempDir(), "norepo"), "", ""},
		{`C:\Users\ana\shop`, "windows", "C:/Users/ana/shop"},
		{"relative/dir", "", "relative/dir"},
	} {
		want := tc.want
		if want == "" {
			want = tc.cwd
		}
		l := enrichMap(t, map[string]any{"session_id": "s", "hook_event_name": "Stop", "cwd": tc.cwd}, Options{GOOS: tc.goos})
		if l.sepa.Project != want {
			t.Errorf("cwd %q: project %q, want %q", tc.cwd, l.sepa.Project, want)
		}
	}
	l := enrichMap(t, map[string]any{"session_id": "s", "hook_event_name": "Stop"}, Options{})
	if l.sepa.Project != "" {
		t.Errorf("no cwd: project %q", l.sepa.Project)
	}
}
