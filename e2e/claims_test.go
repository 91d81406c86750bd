package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportClaimsNothing: `sepad import --home DIR` with no daemon
// writes no prompt file, so it claims no root: the user's Claude Code
// directory gets no .sepad-home naming DIR (it did, and the user's own
// daemon then refused to write there while DIR existed).
func TestImportClaimsNothing(t *testing.T) {
	user, other := t.TempDir(), t.TempDir()
	claudeDir := filepath.Join(user, ".claude")
	writeFile(t, filepath.Join(claudeDir, "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: deploy\n---\nRun the checks.\n")
	env := []string{"HOME=" + user, "SEPA_HOME=" + filepath.Join(user, "state"), "SEPA_CONFIG=", "XDG_CONFIG_HOME=" + filepath.Join(user, "noconfig")}
	logs := filepath.Join("..", "testdata", "import", "pre-only", "logs")
	if out, errOut, code := sepad(t, env, nil, "import", logs, "--home", other); code != 0 || !strings.Contains(out, "imported ") {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(claudeDir, ".sepad-home")); err == nil {
		t.Fatalf("import --home %s claimed the user's Claude Code directory: %q", other, b)
	}
}

// TestUninstallReleasesClaim: the daemon claims an installed project
// (.claude/.sepad-home names its home); `sepad uninstall` removes the
// claim with the hook, and leaves another home's claim alone.
func TestUninstallReleasesClaim(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	claim := filepath.Join(p.dir, ".claude", ".sepad-home")
	waitFor(t, "the daemon's claim", func() bool { b, _ := os.ReadFile(claim); return strings.TrimSpace(string(b)) == p.home })
	d.stop(t)

	if _, errOut, code := sepad(t, p.env(), nil, "uninstall", "--project", p.dir, "--dry-run"); code != 0 || !strings.Contains(errOut, "dry run: would remove "+claim) {
		t.Fatalf("uninstall --dry-run: exit %d %q", code, errOut)
	}
	if _, err := os.Stat(claim); err != nil {
		t.Fatalf("a dry run removed the claim: %v", err)
	}
	out, errOut, code := sepad(t, p.env(), nil, "uninstall", "--project", p.dir)
	if code != 0 || !strings.Contains(out, "removed "+claim) {
		t.Fatalf("uninstall: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(claim); !os.IsNotExist(err) {
		t.Fatalf("uninstall left %s: %v", claim, err)
	}

	// Another home's claim is not this home's to remove.
	if _, errOut, code := sepad(t, p.env(), nil, "install", "--project", p.dir); code != 0 {
		t.Fatalf("install: %s", errOut)
	}
	writeFile(t, claim, "/elsewhere/state\n")
	if out, errOut, code := sepad(t, p.env(), nil, "uninstall", "--project", p.dir); code != 0 || strings.Contains(out, ".sepad-home") {
		t.Fatalf("uninstall with another home's claim: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(claim); string(b) != "/elsewhere/state\n" {
		t.Fatalf("another home's claim: %q", b)
	}
}

// TestTrustRemoveReleasesClaim: `sepad trust --remove DIR` takes the
// right to write DIR away, and with it the claim this home's daemon made
// there (a walk found .claude/.sepad-home left behind, untracked in git,
// after the plugin path's trust and trust --remove).
func TestTrustRemoveReleasesClaim(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	claim := filepath.Join(p.dir, ".claude", ".sepad-home")
	waitFor(t, "the daemon's claim", func() bool { b, _ := os.ReadFile(claim); return strings.TrimSpace(string(b)) == p.home })
	d.stop(t)
	out, errOut, code := sepad(t, p.env(), nil, "trust", "--remove", p.dir)
	if code != 0 || !strings.Contains(out, "removed "+claim) {
		t.Fatalf("trust --remove: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(claim); !os.IsNotExist(err) {
		t.Fatalf("trust --remove left %s: %v", claim, err)
	}
}
