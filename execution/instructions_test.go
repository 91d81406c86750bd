package execution

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sepad/sepad/event"
)

// A session's lines with manifests: start (CLAUDE.md, a user rule),
// nested CLAUDE.md loaded mid-turn, a skill, then a resume after the
// user's CLAUDE.md changed.
func instructionLines() [][]byte {
	const s = `"session_id":"s1","cwd":"/p"`
	m1 := `{"version":"%s","files":[{"path":"/h/.claude/rules/r.md","hash":"aaaaaaaaaaaa"},{"path":"/p/CLAUDE.md","hash":"bbbbbbbbbbbb"}]}`
	m2 := `{"version":"%s","files":[{"path":"/h/.claude/rules/r.md","hash":"cccccccccccc"},{"path":"/p/CLAUDE.md","hash":"bbbbbbbbbbbb"}]}`
	v1 := event.ManifestVersion([]InstructionFile{{Path: "/h/.claude/rules/r.md", Hash: "aaaaaaaaaaaa"}, {Path: "/p/CLAUDE.md", Hash: "bbbbbbbbbbbb"}})
	v2 := event.ManifestVersion([]InstructionFile{{Path: "/h/.claude/rules/r.md", Hash: "cccccccccccc"}, {Path: "/p/CLAUDE.md", Hash: "bbbbbbbbbbbb"}})
	ts := func(n int) string { return fmt.Sprintf(`"ts":"2026-11-24T09:00:%02dZ"`, n) }
	lines := []string{
		`{` + s + `,"hook_event_name":"SessionStart","source":"startup","sepa":{"v":1,` + ts(0) + `,"project":"/p","instructions":` + fmt.Sprintf(m1, v1) + `}}`,
		`{` + s + `,"hook_event_name":"InstructionsLoaded","file_path":"/p/CLAUDE.md","load_reason":"session_start","sepa":{"v":1,` + ts(1) + `,"instructions":{"files":[{"path":"/p/CLAUDE.md","hash":"bbbbbbbbbbbb"}]}}}`,
		`{` + s + `,"hook_event_name":"UserPromptSubmit","prompt":"look","sepa":{"v":1,` + ts(2) + `}}`,
		// Reported at start but missing from the scan: recorded.
		`{` + s + `,"hook_event_name":"InstructionsLoaded","file_path":"/p/.claude/CLAUDE.md","load_reason":"session_start","sepa":{"v":1,` + ts(3) + `,"instructions":{"files":[{"path":"/p/.claude/CLAUDE.md","hash":"dddddddddddd"}]}}}`,
		`{` + s + `,"hook_event_name":"PreToolUse","tool_name":"Read","tool_use_id":"t1","tool_input":{"file_path":"/p/sub/x"},"sepa":{"v":1,` + ts(4) + `}}`,
		`{` + s + `,"hook_event_name":"InstructionsLoaded","file_path":"/p/sub/CLAUDE.md","load_reason":"nested_traversal","sepa":{"v":1,` + ts(5) + `,"instructions":{"files":[{"path":"/p/sub/CLAUDE.md","hash":"eeeeeeeeeeee"}]}}}`,
		`{` + s + `,"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t1","tool_response":"x","sepa":{"v":1,` + ts(6) + `}}`,
		`{` + s + `,"hook_event_name":"PreToolUse","tool_name":"Skill","tool_use_id":"t2","tool_input":{"skill":"deploy"},"sepa":{"v":1,` + ts(7) + `,"skill":"deploy","skill_path":"/p/.claude/skills/deploy/SKILL.md","skill_version":"ffffffffffff"}}`,
		`{` + s + `,"hook_event_name":"PostToolUse","tool_name":"Skill","tool_use_id":"t2","sepa":{"v":1,` + ts(8) + `}}`,
		`{` + s + `,"hook_event_name":"Stop","last_assistant_message":"done","sepa":{"v":1,` + ts(9) + `}}`,
		`{` + s + `,"hook_event_name":"SessionEnd","reason":"other","sepa":{"v":1,` + ts(10) + `}}`,
		`{` + s + `,"hook_event_name":"SessionStart","source":"resume","sepa":{"v":1,` + ts(20) + `,"project":"/p","instructions":` + fmt.Sprintf(m2, v2) + `}}`,
		`{` + s + `,"hook_event_name":"UserPromptSubmit","prompt":"again","sepa":{"v":1,` + ts(21) + `}}`,
		`{` + s + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t3","tool_input":{"command":"ls"},"sepa":{"v":1,` + ts(22) + `}}`,
		`{` + s + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t3","tool_response":"x","sepa":{"v":1,` + ts(23) + `}}`,
		`{` + s + `,"hook_event_name":"Stop","last_assistant_message":"ok","sepa":{"v":1,` + ts(24) + `}}`,
	}
	out := make([][]byte, len(lines))
	for i, l := range lines {
		out[i] = []byte(l)
	}
	return out
}

// TestSessionManifest: every _session part takes the manifest of the
// session's latest SessionStart as its version; a skill's part does not;
// a resume with another manifest is another version; files loaded later
// (or reported at start but missing from the manifest) are recorded with
// the execution they joined.
func TestSessionManifest(t *testing.T) {
	xs := groupAll(NewGrouper(Options{}), instructionLines(), -1)
	var sess []Execution
	for _, x := range xs {
		switch x.Skill {
		case SessionSkill:
			sess = append(sess, x)
		case "deploy":
			if x.SkillVersion != "ffffffffffff" || len(x.Instructions) != 0 {
				t.Errorf("deploy: version %q, instructions %v", x.SkillVersion, x.Instructions)
			}
		}
	}
	if len(sess) != 2 {
		t.Fatalf("want 2 _session executions, got %d: %+v", len(sess), xs)
	}
	v1 := event.ManifestVersion(sess[0].Instructions)
	v2 := event.ManifestVersion(sess[1].Instructions)
	if sess[0].SkillVersion != v1 || sess[1].SkillVersion != v2 || v1 == v2 || len(sess[0].Instructions) != 2 {
		t.Errorf("versions %q %q, manifests %q %q", sess[0].SkillVersion, sess[1].SkillVersion, v1, v2)
	}
	want := []LoadedFile{{Path: "/p/.claude/CLAUDE.md", Hash: "dddddddddddd", Reason: "session_start"}, {Path: "/p/sub/CLAUDE.md", Hash: "eeeeeeeeeeee", Reason: "nested_traversal"}}
	if !slices.Equal(sess[0].Loaded, want) {
		t.Errorf("loaded %+v, want %+v", sess[0].Loaded, want)
	}
	if len(sess[1].Loaded) != 0 {
		t.Errorf("resumed session loaded %+v", sess[1].Loaded)
	}
	if text := event.ManifestText(sess[1].Instructions); text != "/h/.claude/rules/r.md  cccccccccccc\n/p/CLAUDE.md  bbbbbbbbbbbb\n" {
		t.Errorf("text %q", text)
	}
	files, ok := event.ParseManifest(event.ManifestText(sess[1].Instructions))
	if !ok || !slices.Equal(files, sess[1].Instructions) {
		t.Errorf("ParseManifest: %v %v", files, ok)
	}
	if _, ok := event.ParseManifest("not a manifest"); ok {
		t.Errorf("ParseManifest accepted a line without two spaces")
	}
}

// TestSessionManifestRestored: the manifest is part of a thread's saved
// state, so a restart anywhere gives the same executions; state saved
// before this change (no instructions key) restores as before.
func TestSessionManifestRestored(t *testing.T) {
	lines := instructionLines()
	whole, _ := json.Marshal(groupAll(NewGrouper(Options{}), lines, -1))
	for cut := 1; cut < len(lines); cut++ {
		g := NewGrouper(Options{})
		first := groupAll(g, lines[:cut], 0)
		put, _ := g.Dirty()
		g2 := NewGrouper(Options{})
		if err := g2.Restore(put); err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(append(first, groupAll(g2, lines[cut:], -1)...))
		if !bytes.Equal(whole, got) {
			t.Fatalf("cut at %d: restored grouping differs", cut)
		}
	}
	g := NewGrouper(Options{})
	if err := g.Restore(map[string][]byte{"s1": []byte(`{"session":"s1","seq":1,"project":"/p"}`)}); err != nil {
		t.Fatal(err)
	}
	xs := groupAll(g, lines[2:10], -1)
	for _, x := range xs {
		if x.Skill == SessionSkill && (x.SkillVersion != "" || !strings.Contains(x.Project, "/p")) {
			t.Errorf("old state: %+v", x)
		}
	}
}

// TestSessionWithoutManifest: a SessionStart from an older hook (no
// instructions) leaves _session without a version, for the store to
// decide, as before.
func TestSessionWithoutManifest(t *testing.T) {
	lines := [][]byte{
		[]byte(`{"session_id":"s","hook_event_name":"SessionStart","sepa":{"v":1,"ts":"2026-11-24T09:00:00Z"}}`),
		[]byte(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"x","sepa":{"v":1,"ts":"2026-11-24T09:00:01Z"}}`),
		[]byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"a","sepa":{"v":1,"ts":"2026-11-24T09:00:02Z"}}`),
	}
	xs := groupAll(NewGrouper(Options{}), lines, -1)
	if len(xs) != 1 || xs[0].SkillVersion != "" || xs[0].Instructions != nil {
		t.Errorf("%+v", xs)
	}
}
