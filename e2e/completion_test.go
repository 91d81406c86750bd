package e2e

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCompletionSkillNames: the bash completion offers the skills the
// daemon knows (sepad completion --skills through its socket).
func TestCompletionSkillNames(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	home := shortTempDir(t)
	lines, _ := queryLines()
	writeSpool(t, home, lines)
	d := startDaemon(t, home)
	waitCaughtUp(t, home, 3)
	script, errOut, code := sepad(t, queryEnv(home), nil, "completion", "bash")
	if code != 0 {
		t.Fatalf("completion bash: %d %s", code, errOut)
	}
	prog := script + "\nCOMP_WORDS=(" + sepadBin + " versions '')\nCOMP_CWORD=2\n_sepad\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command("bash", "-c", prog)
	cmd.Env = append(os.Environ(), queryEnv(home)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	if got := strings.Join(strings.Fields(string(out)), " "); got != "CLAUDE.md deploy review triage" {
		t.Errorf("skill names offered: %q", got)
	}
	d.stop(t)
}
