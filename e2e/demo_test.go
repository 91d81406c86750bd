package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDemo runs README's first command as a new user would.
func TestDemo(t *testing.T) {
	skipLong(t)
	out, errOut, code := sepad(t, []string{"HOME=" + t.TempDir()}, nil, "demo")
	if code != 0 {
		t.Fatalf("demo exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"v2 rejected: ", "v3 accepted: ", "worse than v1 with 95% confidence", "rolled back by a safety rule: v2 scored",
		"back to v1, its parent", "Grades per skill version", "One execution explained", "tool success rate", "error-free"} {
		contains(t, out, want)
	}
	if n := strings.Count(out, "✓"); n != 3 {
		t.Fatalf("%d of 3 story checks passed:\n%s", n, out)
	}
}

// TestVersionCommandsOnDemoState runs the version and decision commands on
// the state `sepad demo --keep` leaves, as the demo suggests.
func TestVersionCommandsOnDemoState(t *testing.T) {
	skipLong(t)
	tmp := t.TempDir()
	env := []string{"HOME=" + t.TempDir(), "TMPDIR=" + tmp}
	out, errOut, code := sepad(t, env, nil, "demo", "--keep")
	if code != 0 {
		t.Fatalf("demo exit %d: %s", code, errOut)
	}
	// The commands the demo suggests name this binary (not in PATH here)
	// and all work.
	i := strings.Index(out, sepadBin+" grades --home ")
	if i < 0 {
		t.Fatalf("no --home hint naming %s:\n%s", sepadBin, out)
	}
	home := strings.Fields(out[i+len(sepadBin+" grades --home "):])[0]
	suggested := 0
	for _, l := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(l, "  "+sepadBin+" "); ok {
			suggested++
			if o, e, code := sepad(t, env, nil, strings.Fields(c)...); code != 0 || o == "" {
				t.Errorf("suggested %q: exit %d, %s", c, code, e)
			}
		}
	}
	if suggested < 5 {
		t.Errorf("%d commands suggested:\n%s", suggested, out)
	}
	out, errOut, code = sepad(t, env, nil, "versions", "deploy", "--home", home)
	if code != 0 {
		t.Fatalf("versions: %d %s", code, errOut)
	}
	for _, w := range []string{"v1", "v2", "v3", "rejected", "baseline", "* = the version in the file now"} {
		contains(t, out, w)
	}
	out, _, code = sepad(t, env, nil, "show", "deploy@v2", "--home", home)
	if code != 0 || !strings.Contains(out, "skip the checks") {
		t.Fatalf("show v2: %d %q", code, out)
	}
	out, _, code = sepad(t, env, nil, "diff", "deploy", "v1", "v3", "--home", home)
	if code != 0 || !strings.Contains(out, "+4. Report what was shipped") || !strings.Contains(out, "-3. Report what was shipped.") {
		t.Fatalf("diff: %d %q", code, out)
	}
	out, _, code = sepad(t, env, nil, "decisions", "--home", home)
	if code != 0 || !strings.Contains(out, "worse than v1 with 95% confidence") || !strings.Contains(out, "(F) over 5 runs") {
		t.Fatalf("decisions: %d %q", code, out)
	}
	// The rule ids and the test's statistics are one flag away.
	out, _, code = sepad(t, env, nil, "decisions", "-v", "--home", home)
	if code != 0 || !strings.Contains(out, "worse_with_confidence") || !strings.Contains(out, "grade_f") || !strings.Contains(out, "its z ") {
		t.Fatalf("decisions -v: %d %q", code, out)
	}
	// A proposal that drops the baseline's heading is refused, naming the rule.
	bad := filepath.Join(tmp, "bad.md")
	writeFile(t, bad, "---\nname: deploy\ndescription: Ship the shop to an environment\n---\nDeploy the shop: run make check, then make deploy ENV=<env>, then the smoke tests; report what was shipped, why it is safe and what to watch next. Keep it short and concrete, always.\n")
	_, errOut, code = sepad(t, env, nil, "propose", "deploy", bad, "--home", home)
	if code != 1 || !strings.Contains(errOut, "proposal refused: ") || strings.Contains(errOut, "refused by") {
		t.Fatalf("bad proposal: exit %d %q", code, errOut)
	}
	// A manual rollback to v1 writes the file.
	out, errOut, code = sepad(t, env, nil, "rollback", "deploy", "--to", "v1", "--home", home)
	if code != 0 || !strings.Contains(out, "rolled back") {
		t.Fatalf("rollback: %d %q %q", code, out, errOut)
	}
}
