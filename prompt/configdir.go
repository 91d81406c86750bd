package prompt

// The user's Claude Code configuration directory: ~/.claude, or
// $CLAUDE_CONFIG_DIR when it is set. Claude Code reads everything
// user-level from there (settings and hooks, skills, agents, commands,
// CLAUDE.md, rules, transcripts under projects/), so every user-level path
// sepad reads or writes, the hook's included, goes through ConfigDir.

import (
	"errors"
	"os"
	"path/filepath"
)

// EnvVar names the variable that replaces ~/.claude entirely.
const EnvVar = "CLAUDE_CONFIG_DIR"

// ErrNoDir is returned by ConfigDir when neither $CLAUDE_CONFIG_DIR nor the
// user's home directory is known.
var ErrNoDir = errors.New("no Claude Code configuration directory: neither $" + EnvVar + " nor the home directory is set")

// ConfigDirFrom returns the configuration directory for an environment: the
// cleaned value of getenv(EnvVar) when it is not empty, else home/.claude,
// else "" when home is "" too. The value is taken as given, like Claude
// Code does (no ~ expansion; a relative path stays relative).
func ConfigDirFrom(getenv func(string) string, home string) string {
	if d := getenv(EnvVar); d != "" {
		return filepath.Clean(d)
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// ConfigDir returns the configuration directory of this process's user:
// ConfigDirFrom(os.Getenv, os.UserHomeDir()).
func ConfigDir() (string, error) {
	home, herr := os.UserHomeDir()
	if d := ConfigDirFrom(os.Getenv, home); d != "" {
		return d, nil
	}
	if herr != nil {
		return "", errors.Join(ErrNoDir, herr)
	}
	return "", ErrNoDir
}
