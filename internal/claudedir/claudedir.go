// Package claudedir locates the user's Claude Code configuration
// directory: ~/.claude, or $CLAUDE_CONFIG_DIR when it is set. Claude Code
// reads everything user-level from there (settings and hooks, skills,
// agents, commands, CLAUDE.md, rules, transcripts under projects/), so
// every user-level path sepad reads or writes goes through Dir.
//
// The hook cannot import this package (docs/architecture.md, "The hook's
// path"); hooks.ClaudeConfigDir is its copy, and a test in package hooks
// keeps the two equal.
package claudedir

import (
	"errors"
	"os"
	"path/filepath"
)

// EnvVar names the variable that replaces ~/.claude entirely.
const EnvVar = "CLAUDE_CONFIG_DIR"

// ErrNoDir is returned by Dir when neither $CLAUDE_CONFIG_DIR nor the
// user's home directory is known.
var ErrNoDir = errors.New("no Claude Code configuration directory: neither $" + EnvVar + " nor the home directory is set")

// From returns the configuration directory for an environment: the
// cleaned value of getenv(EnvVar) when it is not empty, else home/.claude,
// else "" when home is "" too. The value is taken as given, like Claude
// Code does (no ~ expansion; a relative path stays relative).
func From(getenv func(string) string, home string) string {
	if d := getenv(EnvVar); d != "" {
		return filepath.Clean(d)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// Dir returns the configuration directory of this process's user:
// From(os.Getenv, os.UserHomeDir()).
func Dir() (string, error) {
	home, herr := os.UserHomeDir()
	if d := From(os.Getenv, home); d != "" {
		return d, nil
	}
	if herr != nil {
		return "", errors.Join(ErrNoDir, herr)
	}
	return "", ErrNoDir
}
