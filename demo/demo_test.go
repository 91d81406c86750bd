package demo

import (
	"strings"
	"testing"
)

// TestRun: the demo's story happens as recorded (every step checked,
// none failed), and its tables come out.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("the demo runs the daemon's components for a few seconds")
	}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	t.Setenv("TMPDIR", t.TempDir())
	var out strings.Builder
	if err := Run(Options{Out: &out, Self: "sepad"}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	s := out.String()
	for _, want := range []string{"✓ v2 made deploy worse: deploy's file is v1 again", "✓ v3 made deploy better: deploy keeps v3",
		"✓ review v2 was graded F: review's file is v1 again", "One execution explained", "COMPARED", " vs v1", "Run `sepad demo --keep`"} {
		if !strings.Contains(s, want) {
			t.Errorf("the demo lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "✗") {
		t.Errorf("a step of the story failed:\n%s", s)
	}
}
