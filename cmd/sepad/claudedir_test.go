package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUserSettingsFollowClaudeConfigDir: `install --user`, `uninstall
// --user` and `doctor` use $CLAUDE_CONFIG_DIR/settings.json when it is
// set (Claude Code then never reads ~/.claude), and ~/.claude/settings.json
// when it is not.
func TestUserSettingsFollowClaudeConfigDir(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  bool // set CLAUDE_CONFIG_DIR
	}{
		{"CLAUDE_CONFIG_DIR set", true},
		{"CLAUDE_CONFIG_DIR unset", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			home, cfg := filepath.Join(base, "home"), filepath.Join(base, "cfg")
			os.MkdirAll(home, 0o755)
			t.Setenv("HOME", home)
			t.Setenv("USERPROFILE", home)
			t.Setenv("SEPA_HOME", filepath.Join(base, "state"))
			want, other := filepath.Join(home, ".claude", "settings.json"), filepath.Join(cfg, "settings.json")
			if tc.cfg {
				t.Setenv("CLAUDE_CONFIG_DIR", cfg)
				want, other = other, want
			} else {
				t.Setenv("CLAUDE_CONFIG_DIR", "")
			}
			code, out, errs := runInstallCmd(t, "install", "--user")
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("install --user: exit %d, stdout %q, stderr %q; want %s named", code, out, errs, want)
			}
			b, err := os.ReadFile(want)
			if err != nil || !strings.Contains(string(b), "PostToolUse") {
				t.Fatalf("%s: %v %q", want, err, b)
			}
			if _, err := os.Stat(other); !os.IsNotExist(err) {
				t.Fatalf("%s was written too (%v)", other, err)
			}
			code, out, errs = runInstallCmd(t, "uninstall", "--user")
			if code != 0 || !strings.Contains(out, want) {
				t.Fatalf("uninstall --user: exit %d, stdout %q, stderr %q", code, out, errs)
			}
			// (The test binary is not named sepad, so uninstall recognises
			// none of the entries as its own: hooks/settings tests that.)
			os.Remove(want)
			// doctor reads the user settings there, and only there: an
			// unreadable file in the other place is not its business.
			proj := t.TempDir()
			os.MkdirAll(filepath.Dir(other), 0o755)
			os.WriteFile(other, []byte("{bad"), 0o644)
			_, out, _ = runInstallCmd(t, "doctor", "--project", proj)
			if !strings.Contains(out, "no sepad hook in "+want) || strings.Contains(out, other) {
				t.Fatalf("doctor should look in %s only:\n%s", want, out)
			}
			os.WriteFile(want, []byte("{bad"), 0o644)
			_, out, _ = runInstallCmd(t, "doctor", "--project", proj)
			if !strings.Contains(out, "FAIL  "+want+": ") {
				t.Fatalf("doctor did not read %s:\n%s", want, out)
			}
		})
	}
}
