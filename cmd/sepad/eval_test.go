package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/evals"
)

// TestImportClaudeEval records an existing aggregate-result.json for a
// plugin skill's prompt file, and refuses one older than the file's last
// change.
func TestImportClaudeEval(t *testing.T) {
	home := t.TempDir()
	t.Setenv("SEPA_HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	skill := filepath.Join(t.TempDir(), "acme", "skills", "deploy", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	os.WriteFile(skill, []byte("---\nname: deploy\n---\nShip it.\n"), 0o644)
	result := filepath.Join("..", "..", "evals", "testdata", "aggregate-result.json")

	// The file changed after the suite started (its startedAt is in the
	// past): which version it evaluated is unknown.
	code, out, errs := runCmd(t, "import", "--claude-eval", result, skill)
	if code == 0 || !strings.Contains(errs, "after the suite started") {
		t.Fatalf("a prompt changed since: exit %d\n%s%s", code, out, errs)
	}
	old := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(skill, old, old)
	code, out, errs = runCmd(t, "import", "--home", home, "--claude-eval", result, skill)
	if code != 0 || !strings.Contains(out, "evals 1.00 over 1 case × 1 run, +0.00 against no skill") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	all, err := evals.Load(home)
	if err != nil || len(all) != 1 || all[0].SkillKey != skill || all[0].Source != "import" || len(all[0].Version) != 12 || all[0].Plugin != "acme" {
		t.Fatalf("evidence: %+v %v", all, err)
	}
	if code, _, errs := runCmd(t, "import", "--claude-eval", result); code != exitUsage {
		t.Fatalf("no SKILL: exit %d %s", code, errs)
	}
}
