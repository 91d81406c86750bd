package claudecode

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// TestEvalGateShell: a suite case that needs a shell (allowed_tools:
// [Bash]) on the real CLI 2.1.328 against the fake model server, gated
// with `sepad eval SKILL --gate`. With mutation.eval_gate.allow_tools
// [Bash] the run's Bash runs in Claude Code's OS sandbox (bubblewrap):
// the case passes, and the sandbox is what docs/claude-code.md says (the
// project not visible, the working directory read-only, a private /tmp
// writable). Without the grant, Bash is not offered and the case fails
// every candidate.
func TestEvalGateShell(t *testing.T) {
	for _, tool := range []string{"bwrap", "socat"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("SEPAD_REQUIRE_SANDBOX") != "" {
				t.Fatalf("%s is missing: Claude Code's OS sandbox needs Debian's bubblewrap and socat", tool)
			}
			t.Skipf("%s is missing: Claude Code's OS sandbox needs Debian's bubblewrap and socat", tool)
		}
	}
	for _, c := range clients(t) {
		if c.Version != "2.1.328" {
			continue
		}
		e := newEnv(t, c)
		dir := filepath.Join(e.Project, ".claude", "skills", "fixtests")
		skill := e.write(filepath.Join(dir, "SKILL.md"), "---\nname: fixtests\ndescription: Run the tests. Use when asked.\n---\n# Fix tests\n\nRun the tests and fix what fails.\n")
		base := e.write(filepath.Join(e.Root, "base.md"), "---\nname: fixtests\ndescription: Run the tests. Use when asked.\n---\n# Fix tests\n\nRun the tests.\n")
		e.write(filepath.Join(dir, "evals", "runs", "prompt.md"), "---\nruns: 1\nmax_turns: 4\nallowed_tools: [Bash]\n---\nRun the tests @@shellgate@@\n")
		e.write(filepath.Join(dir, "evals", "runs", "graders", "ran.md"), "---\ntype: regex\ntarget: trace\nmatch: contains\npattern: sandbox-42\n---\nThe shell ran.\n")
		e.API.Set("shellgate", fakeclaude.Script{{Tools: []fakeclaude.Tool{bash("echo sandbox-$((6*7)); ls " + e.Project + "; touch x; touch /tmp/y && echo tmp-ok")}}, {Text: "Done."}})
		cfg := filepath.Join(e.Home, ".config", "sepa", "config.yaml")
		e.Env = append(e.Env, e.claudeEnv()[len(e.baseEnv()):]...)
		result := func() string {
			var out []string
			for _, r := range e.API.Requests() {
				if b := string(r.Body); r.Step == 1 && strings.Contains(b, "tool_result") {
					out = append(out, b[strings.Index(b, "tool_result"):])
				}
			}
			if len(out) == 0 {
				return ""
			}
			return out[len(out)-1]
		}

		e.write(cfg, "mutation:\n  claude: "+c.Bin+"\n  eval_gate:\n    threshold: 1\n    allow_tools: [Bash]\n")
		out, errOut, code := e.sepad("eval", skill, "--gate", "--baseline", base)
		if code != 0 || !strings.Contains(out, "eval gate held: 1.00 over 1 case × 1 run") {
			t.Fatalf("with allow_tools [Bash]: exit %d\n%s%s\n%s", code, out, errOut, result())
		}
		r := result()
		for _, want := range []string{"sandbox-42", "ls: cannot access '" + e.Project + "': No such file or directory", "touch: cannot touch 'x': Read-only file system", "tmp-ok"} {
			if !strings.Contains(r, want) {
				t.Errorf("the sandboxed Bash's result lacks %q:\n%.600s", want, r)
			}
		}

		e.write(cfg, "mutation:\n  claude: "+c.Bin+"\n  eval_gate:\n    threshold: 1\n")
		out, errOut, code = e.sepad("eval", skill, "--gate", "--baseline", base)
		if code != 1 || !strings.Contains(out, "refused by eval gate: case runs (0.00) is below the threshold 1.00") ||
			!strings.Contains(result(), "No such tool available: Bash. Bash is disabled for this session") {
			t.Fatalf("without allow_tools: exit %d\n%s%s\n%.600s", code, out, errOut, result())
		}
		if b, _ := os.ReadFile(skill); !strings.Contains(string(b), "fix what fails") {
			t.Errorf("the gate wrote the prompt file:\n%s", b)
		}
	}
}
