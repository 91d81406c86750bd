package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/store"
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

// TestExplainLastWithNothingOnePrefix: `sepad explain last` before any
// execution, and an unknown execution, name the command once and say it
// once (no ": not found" after "no execution"; issue 36 item 8).
func TestExplainLastWithNothingOnePrefix(t *testing.T) {
	root := t.TempDir()
	state := filepath.Join(root, "state")
	env := []string{"HOME=" + filepath.Join(root, "home"), "SEPA_HOME=" + state}
	if err := os.MkdirAll(state, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(state, "sepa.db"), store.Options{}) // an empty store
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"explain", "last"}, "sepad explain: no execution recorded yet\n"},
		{[]string{"explain", "nosuch"}, "sepad explain: no execution \"nosuch\"\n"},
		{[]string{"label", "nosuch", "success"}, "sepad label: no execution \"nosuch\"\n"},
		{[]string{"explain", "last", "--skill", "deploy"}, "sepad explain: no skill named \"deploy\": sepad has recorded no skill yet\n"},
	} {
		_, errOut, code := sepad(t, env, nil, c.args...)
		if code == 0 || errOut != c.want {
			t.Errorf("sepad %s: exit %d, stderr %q, want %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}
