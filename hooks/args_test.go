package hooks

import (
	"os"
	"slices"
	"testing"
)

// TestProcessArgs: /proc/self/cmdline gives what os.Args holds.
func TestProcessArgs(t *testing.T) {
	if got := ProcessArgs(); !slices.Equal(got, os.Args) {
		t.Fatalf("processArgs %q, os.Args %q", got, os.Args)
	}
}
