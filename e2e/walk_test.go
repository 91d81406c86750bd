package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalWithoutSuiteOnePrefix: `sepad eval` of a skill without an eval
// suite names the command once ("sepad eval: deploy: …", not "sepad eval:
// eval deploy: …"), as a new user's walk found it (issue 36 item 8).
func TestEvalWithoutSuiteOnePrefix(t *testing.T) {
	root := t.TempDir()
	env := []string{"HOME=" + filepath.Join(root, "home"), "SEPA_HOME=" + filepath.Join(root, "state")}
	skill := filepath.Join(root, "proj", ".claude", "skills", "deploy", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, skill, "---\nname: deploy\n---\n# Deploy\n\nRun the checks.\n")
	_, errOut, code := sepad(t, env, nil, "eval", skill)
	if code == 0 || !strings.HasPrefix(errOut, "sepad eval: deploy: ") || strings.Count(errOut, "eval ") > 1 || !strings.Contains(errOut, "has no eval suite") {
		t.Errorf("exit %d, stderr:\n%s", code, errOut)
	}
}
