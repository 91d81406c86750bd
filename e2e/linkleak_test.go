package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkOutOfProjectNotServed: a cloned project's SKILL.md that links
// to a file of the user's outside the project: the hook records the skill
// by its path, marked as leading out, and neither the spool, the store nor
// /v1/skills ever holds the target's hash (docs/security.md, "Roots").
func TestLinkOutOfProjectNotServed(t *testing.T) {
	base := t.TempDir()
	home, user := filepath.Join(base, "state"), filepath.Join(base, "user")
	proj := filepath.Join(base, "proj")
	secret := filepath.Join(base, "user", ".ssh", "id_ed25519")
	os.MkdirAll(filepath.Dir(secret), 0o700)
	os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nhunter2\n"), 0o600)
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	skill := filepath.Join(proj, ".claude", "skills", "leak", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	if err := os.Symlink(secret, skill); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("-----BEGIN OPENSSH PRIVATE KEY-----\nhunter2\n"))
	leaked := hex.EncodeToString(sum[:6])

	env := append(queryEnv(home), "HOME="+user, "CLAUDE_CONFIG_DIR="+filepath.Join(user, ".claude"))
	for _, p := range []map[string]any{
		{"hook_event_name": "UserPromptSubmit", "prompt": "use the leak skill"},
		{"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": map[string]any{"skill": "leak"}, "tool_use_id": "toolu_1"},
		{"hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_input": map[string]any{"skill": "leak"}, "tool_use_id": "toolu_1", "tool_response": "ok"},
		{"hook_event_name": "Stop", "last_assistant_message": "done"},
		{"hook_event_name": "SessionEnd", "reason": "exit"},
	} {
		p["session_id"], p["cwd"] = "sess-leak", proj
		b, _ := json.Marshal(p)
		if out, errOut, code := sepad(t, env, b, "hook"); code != 0 || out != "" {
			t.Fatalf("sepad hook: exit %d %q %s", code, out, errOut)
		}
	}
	spool, _ := os.ReadFile(filepath.Join(home, "events.jsonl"))
	if strings.Contains(string(spool), leaked) || !strings.Contains(string(spool), `"skill_link":"outside_project"`) {
		t.Errorf("the spool holds the target's hash, or no skill_link:\n%s", spool)
	}
	d := startDaemon(t, home)
	var body string
	waitFor(t, "the execution in /v1/executions", func() bool {
		out, _, code := sepad(t, env, nil, "api", "/v1/executions")
		body = out
		return code == 0 && strings.Contains(out, `"leak"`)
	})
	if strings.Contains(body, leaked) {
		t.Errorf("/v1/executions serves the hash of a file outside the project:\n%s", body)
	}
	body, _, _ = sepad(t, env, nil, "api", "/v1/skills")
	if strings.Contains(body, leaked) {
		t.Errorf("/v1/skills serves the hash of a file outside the project:\n%s", body)
	}
	if out, _, _ := sepad(t, env, nil, "api", "/v1/skills/leak/versions"); strings.Contains(out, leaked) {
		t.Errorf("/v1/skills/leak/versions serves it:\n%s", out)
	}
	d.stop(t)
}
