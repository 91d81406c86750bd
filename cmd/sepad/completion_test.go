package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// complete runs the bash completion function on a command line (the last
// word being completed) and returns the candidates.
func complete(t *testing.T, script string, words ...string) []string {
	t.Helper()
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, "'"+w+"'")
	}
	prog := script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_sepad\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	out, err := exec.Command("bash", "-c", prog).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	return strings.Fields(string(out))
}

func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	code, script, errOut := runCmd(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"sepad", "ver"}, "version versions"},
		{[]string{"sepad", "grades", "--fa"}, "--fail-under"},
		{[]string{"sepad", "rollback", "--"}, "--config --home --json --to"},
		{[]string{"sepad", "completion", "f"}, "fish"},
		{[]string{"sepad", "help", "dif"}, "diff"},
		{[]string{"sepad", "evolve", "deploy", "--strategy", "c"}, "constraint_add clarify"},
		{[]string{"sepad", "evolve", "--"}, "--config --dry-run --force --home --json --strategy --v"},
		{[]string{"sepad", "la"}, "label"},
		{[]string{"sepad", "label", "la"}, "last"},
		{[]string{"sepad", "label", "last", "f"}, "failure"},
		{[]string{"sepad", "label", "last", "--r"}, "--rater --rubric-version"},
	} {
		if got := strings.Join(complete(t, script, c.words...), " "); got != c.want {
			t.Errorf("%v: %q, want %q", c.words, got, c.want)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, sh := range []string{"zsh", "fish"} {
		code, script, errOut := runCmd(t, "completion", sh)
		if code != 0 || !strings.Contains(script, "completion --skills") || !strings.Contains(script, "fail-under") {
			t.Errorf("%s: exit %d %s\n%s", sh, code, errOut, script)
		}
		if _, err := exec.LookPath(sh); err == nil {
			if out, err := exec.Command(sh, "-n", "-c", script).CombinedOutput(); err != nil {
				t.Errorf("%s -n: %v\n%s", sh, err, out)
			}
		}
	}
	if code, _, errOut := runCmd(t, "completion", "tcsh"); code != exitUsage || !strings.Contains(errOut, "want bash, zsh or fish") {
		t.Errorf("tcsh: exit %d %s", code, errOut)
	}
}
