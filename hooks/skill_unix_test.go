//go:build unix

package hooks

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestSkillFIFO: a SKILL.md that is a FIFO must not block the hook.
func TestSkillFIFO(t *testing.T) {
	home, repo, cwd := skillTree(t)
	fifoDir := filepath.Join(repo, ".claude/skills/fifo")
	os.MkdirAll(fifoDir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifoDir, "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := map[string]any{"session_id": "s", "hook_event_name": "PreToolUse", "cwd": cwd, "tool_name": "Skill", "tool_input": map[string]any{"skill": "fifo"}}
	done := make(chan string, 1)
	go func() { done <- enrichMap(t, p, Options{UserHome: home}).sepa.SkillPath }()
	select {
	case got := <-done:
		if got != "" {
			t.Fatalf("FIFO resolved as %q", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Enrich blocked on a FIFO")
	}
}
