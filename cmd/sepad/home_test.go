package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the commands these tests run in this process a home of
// their own: TestImportTwice, run with the developer's HOME, claimed
// ~/.claude/.sepad-home for its temporary state directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sepad-cmd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for k, v := range map[string]string{"HOME": dir, "CLAUDE_CONFIG_DIR": dir + "/.claude", "SEPA_HOME": dir + "/state", "XDG_STATE_HOME": dir + "/.local/state"} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
