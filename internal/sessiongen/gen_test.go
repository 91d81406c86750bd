package sessiongen

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestGenerate: the same seed gives the same lines, another seed others;
// every line is one JSON object with a session and an event name, each
// session starts with SessionStart, and every PostToolUse follows its
// PreToolUse.
func TestGenerate(t *testing.T) {
	o := Options{Seed: 3, Sessions: 4, Interleave: true,
		Skills: []Skill{{Name: "deploy", Path: "/p/.claude/skills/deploy/SKILL.md", Version: "aaaaaaaaaaaa", Quality: 0.8},
			{Name: "review", Path: "/p/.claude/agents/review.md", Version: "bbbbbbbbbbbb", Quality: 0.5, Agent: true}}}
	a, b := Generate(o), Generate(o)
	if len(a) == 0 || !equalLines(a, b) {
		t.Fatalf("the same seed gave different streams (%d and %d lines)", len(a), len(b))
	}
	o.Seed = 4
	if equalLines(a, Generate(o)) {
		t.Error("another seed gave the same stream")
	}
	started := map[string]bool{}
	pre := map[string]bool{}
	events := map[string]int{}
	for i, l := range a {
		var ev struct {
			Session string `json:"session_id"`
			Name    string `json:"hook_event_name"`
			ToolID  string `json:"tool_use_id"`
		}
		if err := json.Unmarshal(l, &ev); err != nil || ev.Session == "" || ev.Name == "" || bytes.ContainsRune(l, '\n') {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		events[ev.Name]++
		if !started[ev.Session] && ev.Name != "SessionStart" {
			t.Fatalf("line %d: session %s's first event is %s", i+1, ev.Session, ev.Name)
		}
		started[ev.Session] = true
		switch ev.Name {
		case "PreToolUse":
			pre[ev.ToolID] = true
		case "PostToolUse", "PostToolUseFailure":
			if !pre[ev.ToolID] {
				t.Errorf("line %d: %s of %s without its PreToolUse", i+1, ev.Name, ev.ToolID)
			}
		}
	}
	if len(started) != 4 {
		t.Errorf("%d sessions, want 4", len(started))
	}
	for _, name := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
		if events[name] == 0 {
			t.Errorf("no %s event in %v", name, events)
		}
	}
}

func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
