package testbin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ClaudeVersions are the Claude Code versions the real-client tests run
// on: $SEPAD_CLAUDE_VERSIONS (separated by spaces), else def.
func ClaudeVersions(def ...string) []string {
	if v := strings.Fields(os.Getenv("SEPAD_CLAUDE_VERSIONS")); len(v) > 0 {
		return v
	}
	return def
}

// ClaudeCache is where scripts/claude-code.sh installs the Claude Code
// CLIs: $SEPAD_CLAUDE_CACHE, else $XDG_CACHE_HOME/sepad/claude-code, else
// ~/.cache/sepad/claude-code.
func ClaudeCache() string {
	if c := os.Getenv("SEPAD_CLAUDE_CACHE"); c != "" {
		return c
	}
	if x := os.Getenv("XDG_CACHE_HOME"); x != "" {
		return filepath.Join(x, "sepad", "claude-code")
	}
	h, _ := os.UserHomeDir()
	return filepath.Join(h, ".cache", "sepad", "claude-code")
}

// Claude returns the binary of Claude Code version v installed by
// scripts/claude-code.sh, or skips the test in one line when it is not
// installed (fails it with SEPAD_REQUIRE_CLAUDE=1, as .ci/run sets).
func Claude(t testing.TB, v string) string {
	t.Helper()
	bin := filepath.Join(ClaudeCache(), v, "node_modules", ".bin", "claude")
	if _, err := os.Stat(bin); err != nil {
		msg := fmt.Sprintf("Claude Code %s is not installed (run scripts/claude-code.sh %s)", v, v)
		if os.Getenv("SEPAD_REQUIRE_CLAUDE") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}
