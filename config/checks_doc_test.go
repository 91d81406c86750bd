package config

import (
	"os"
	"strings"
	"testing"
)

// TestChecksExamplesParse: the checks examples of README.md and
// docs/rubric.md are configurations sepad accepts.
func TestChecksExamplesParse(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ file, heading string }{
		{"../README.md", "### A person's verdict and a skill's own checks"},
		{"../docs/rubric.md", "### checks"},
	} {
		b, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(string(b), "\n"+tc.heading+"\n")
		if !ok {
			t.Fatalf("%s has no %q", tc.file, tc.heading)
		}
		_, block, ok := strings.Cut(rest, "```yaml\n")
		if !ok {
			t.Fatalf("%s %q has no yaml example", tc.file, tc.heading)
		}
		block, _, _ = strings.Cut(block, "```")
		c, err := Parse(tc.file, []byte(block), base)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(c.ChecksFor("deploy")) == 0 {
			t.Errorf("%s: no checks for deploy", tc.file)
		}
	}
}
