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

// FuzzSkillAttribution: whatever skill or agent name a payload carries
// (bare, or scoped DIR:NAME), the prompt file the hook opens lies inside
// one of the skill roots (the .claude of the repository and of any
// directory in it, nested skills included, and the user's ~/.claude), in
// a skills/NAME/SKILL.md, agents/NAME.md or commands/NAME.md of it, and
// the recorded version is the hash of its content. The tree has a secret
// next to the roots that a traversal would reach.
// Seeds: testdata/fuzz/FuzzSkillAttribution/.
func FuzzSkillAttribution(f *testing.F) {
	for _, s := range []string{"deploy", "review", "code-reviewer", "db-expert", "../secret", "..", "secret", "skills.md",
		"/deploy", "deploy/../../secret", "outside", `..\secret`, "C:secret", "review\x00", "fmt", "standup", " deploy ",
		"nested", "apps/web:nested", "apps/web:deploy", "apps:web", "plug:deploy", "apps/../..:secret", "apps/web:../../secret",
		"apps/web/.claude:secret", "..:secret", ".claude:secret", "apps//web:nested", "/apps/web:nested"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	home, repo, cwd := skillTree(f)
	userRoot := filepath.Join(home, ".claude") + string(filepath.Separator)
	f.Fuzz(func(t *testing.T, name string, how uint8) {
		p := map[string]any{"session_id": "s", "cwd": cwd}
		switch how % 3 {
		case 0:
			p["hook_event_name"], p["tool_name"], p["tool_input"] = "PreToolUse", "Skill", map[string]any{"skill": name}
		case 1:
			p["hook_event_name"], p["tool_name"], p["tool_input"] = "PreToolUse", "Agent", map[string]any{"subagent_type": name}
		default:
			p["hook_event_name"], p["prompt"] = "UserPromptSubmit", "/"+name+" now"
		}
		in, err := json.Marshal(p)
		if err != nil {
			t.Skip()
		}
		var out struct {
			Sepa struct {
				SkillPath    string `json:"skill_path"`
				SkillVersion string `json:"skill_version"`
			} `json:"sepa"`
		}
		line := Enrich(in, t0, Options{UserHome: home})
		if err := json.Unmarshal(line, &out); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		path := out.Sepa.SkillPath
		if path == "" {
			// (A typed "/apps/web:nested" is no slash command: event.SlashCommand
			// takes no "/" in a name.)
			if (name == "deploy" || name == "nested") && how%3 != 1 || name == "apps/web:nested" && how%3 == 0 {
				t.Fatalf("deploy not attributed: %q", line) // the check above would be vacuous
			}
			return
		}
		if filepath.Clean(path) != path || !strings.HasSuffix(path, ".md") {
			t.Fatalf("name %q opened %s: not a clean path to a .md file", name, path)
		}
		var rel string // the path below its .claude
		switch {
		case strings.HasPrefix(path, userRoot):
			rel = strings.TrimPrefix(path, userRoot)
		case strings.HasPrefix(path, repo+string(filepath.Separator)):
			i := strings.LastIndex(path, string(filepath.Separator)+".claude"+string(filepath.Separator))
			if i < 0 {
				t.Fatalf("name %q opened %s, in no .claude of the repository", name, path)
			}
			rel = path[i+len(".claude")+2:]
		default:
			t.Fatalf("name %q opened %s, outside the repository and %s", name, path, userRoot)
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		ok := len(parts) == 3 && parts[0] == "skills" && parts[2] == "SKILL.md" ||
			len(parts) == 2 && (parts[0] == "agents" || parts[0] == "commands")
		if !ok {
			t.Fatalf("name %q opened %s: %s is not a prompt file's place", name, path, rel)
		}
		content, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("recorded path %s: %v", path, err)
		}
		sum := sha256.Sum256(content)
		if got := hex.EncodeToString(sum[:6]); out.Sepa.SkillVersion != got {
			t.Fatalf("version %q for %s, content hashes to %s", out.Sepa.SkillVersion, path, got)
		}
	})
}
