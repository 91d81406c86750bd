package prompt

import "testing"

func TestClassify(t *testing.T) {
	cases := []struct {
		path string
		kind RootKind
		want string
	}{
		{"/p/.claude/skills/deploy/SKILL.md", RootProject, "skill:deploy"},
		{"/p/.claude/agents/review.md", RootProject, "agent:review"},
		{"/p/.claude/commands/fmt.md", RootUser, "command:fmt"},
		{"/p/CLAUDE.md", RootProject, "session:_session"},
		{"/p/CLAUDE.md", RootUser, ""},
		{"/p/CLAUDE.md", RootUser | RootProject, "session:_session"},
		{"/p/.claude/skills/deploy/other.md", RootProject, ""},
		{"/p/.claude/skills/.hidden/SKILL.md", RootProject, ""},
		{"/p/.claude/agents/.#review.md", RootProject, ""},
		{"/p/.claude/agents/review.md~", RootProject, ""},
		{"/p/.claude/agents/.md", RootProject, ""},
		{"/p/.claude/commands/sub/fmt.md", RootProject, ""},
		{"/p/README.md", RootProject, ""},
		{"/q/CLAUDE.md", RootProject, ""},
		{"/p", RootProject, ""},
	}
	for _, c := range cases {
		pf, ok := Classify("/p", c.path, c.kind)
		got := ""
		if ok {
			got = pf.Kind + ":" + pf.Name
		}
		if got != c.want {
			t.Errorf("Classify(%s, %v) = %q, want %q", c.path, c.kind, got, c.want)
		}
	}
	if pf, _ := Classify("/p", "/p/CLAUDE.md", RootProject); pf.Key != "/p#_session" || pf.Project != "/p" {
		t.Errorf("session: %+v", pf)
	}
	if pf, _ := Classify("/p", "/p/.claude/agents/a.md", RootUser); pf.Key != "/p/.claude/agents/a.md" || pf.Project != "" {
		t.Errorf("user agent: %+v", pf)
	}
}
