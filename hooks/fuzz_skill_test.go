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

// FuzzSkillAttribution: whatever skill or agent name a payload carries,
// the prompt file the hook opens lies inside one of the skill roots (the
// repository's and its subdirectories' .claude, and the user's ~/.claude),
// is a .md file, and the recorded version is the hash of its content. The
// tree has a secret next to the roots that a traversal would reach.
// Seeds: testdata/fuzz/FuzzSkillAttribution/.
func FuzzSkillAttribution(f *testing.F) {
	for _, s := range []string{"deploy", "review", "code-reviewer", "db-expert", "../secret", "..", "secret", "skills.md",
		"/deploy", "deploy/../../secret", "outside", `..\secret`, "C:secret", "review\x00", "fmt", "standup", " deploy "} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
		f.Add(s, uint8(2))
	}
	home, repo, cwd := skillTree(f)
	roots := []string{filepath.Join(home, ".claude") + string(filepath.Separator)}
	for d := cwd; ; d = filepath.Dir(d) {
		roots = append(roots, filepath.Join(d, ".claude")+string(filepath.Separator))
		if d == repo {
			break
		}
	}
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
			if name == "deploy" && how%3 != 1 {
				t.Fatalf("deploy not attributed: %q", line) // the check above would be vacuous
			}
			return
		}
		inside := false
		for _, r := range roots {
			if strings.HasPrefix(filepath.Clean(path), r) {
				inside = true
			}
		}
		if !inside || !strings.HasSuffix(path, ".md") {
			t.Fatalf("name %q opened %s, outside the roots %v", name, path, roots)
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
