package e2e

import (
	"strings"
	"testing"
)

// TestDemo runs README's first command as a new user would.
func TestDemo(t *testing.T) {
	out, errOut, code := sepad(t, []string{"HOME=" + t.TempDir()}, nil, "demo")
	if code != 0 {
		t.Fatalf("demo exit %d: %s\n%s", code, errOut, out)
	}
	for _, want := range []string{"rejected (", "accepted (", "rolled back by a safety rule (grade_f)", "Grades per skill version", "One execution explained", "tool_success_rate"} {
		contains(t, out, want)
	}
	if n := strings.Count(out, "✓"); n != 3 {
		t.Fatalf("%d of 3 story checks passed:\n%s", n, out)
	}
}
