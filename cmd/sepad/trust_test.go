package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sepad/sepad/promptfile"
)

// TestTrust: `sepad trust DIR` records the project where the daemon's
// write roots are read, --remove takes it off, and neither / nor the
// home directory can be trusted as a whole.
func TestTrust(t *testing.T) {
	home := t.TempDir()
	t.Setenv("SEPA_HOME", home)
	proj := t.TempDir()
	code, out, errOut := runInstallCmd(t, "trust", proj)
	if code != 0 || !strings.Contains(out, "sepad may now write prompt files in "+proj) {
		t.Fatalf("trust: exit %d %q %q", code, out, errOut)
	}
	if got := promptfile.InstalledRoots(home); !slices.Equal(got, []string{proj}) {
		t.Fatalf("roots after trust: %v", got)
	}
	if _, out, _ := runInstallCmd(t, "trust", "--list"); strings.TrimSpace(out) != proj {
		t.Fatalf("trust --list: %q", out)
	}
	if code, _, _ := runInstallCmd(t, "trust", "--remove", proj); code != 0 || len(promptfile.InstalledRoots(home)) != 0 {
		t.Fatalf("trust --remove: exit %d, roots %v", code, promptfile.InstalledRoots(home))
	}
	uh, _ := os.UserHomeDir()
	for _, dir := range []string{string(filepath.Separator), uh, filepath.Join(proj, "missing")} {
		if code, _, errOut := runInstallCmd(t, "trust", dir); code == 0 || errOut == "" {
			t.Errorf("trust %s: exit %d", dir, code)
		}
	}
	if len(promptfile.InstalledRoots(home)) != 0 {
		t.Fatalf("a refused trust recorded %v", promptfile.InstalledRoots(home))
	}
	// A missing directory is named in words, not as stat's error.
	missing := filepath.Join(proj, "missing")
	if _, _, errOut := runInstallCmd(t, "trust", missing); errOut != "sepad trust: no directory "+missing+"\n" {
		t.Errorf("trust of a missing directory: %q", errOut)
	}
}
