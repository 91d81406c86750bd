package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// DefaultPath is where sepad looks for a user file when neither
// --config nor $SEPA_CONFIG names one.
func DefaultPath() (string, error) {
	if p := os.Getenv("SEPA_CONFIG"); p != "" {
		return p, nil
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "sepa", "config.yaml"), nil
}

// Init writes the embedded defaults with every setting commented out to
// path ("": DefaultPath), so the file changes nothing until a line is
// uncommented, and returns the path written. An existing file is
// replaced only with force.
func Init(path string, force bool) (string, error) {
	if path == "" {
		p, err := DefaultPath()
		if err != nil {
			return "", err
		}
		path = p
	}
	if _, err := os.Stat(path); err == nil && !force {
		return "", fmt.Errorf("%s exists: edit it, or replace it with --force", path)
	}
	var b bytes.Buffer
	b.WriteString("# sepad configuration, written by `sepad config init`.\n# Every setting is commented out: uncomment and change only what you need;\n# the rest keeps its default. `sepad config show` prints what is in force.\n\n")
	for _, l := range strings.SplitAfter(string(Default), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			b.WriteString(l)
			continue
		}
		b.WriteString("# " + l)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return "", err
	}
	if _, err := Load(path); err != nil {
		return "", fmt.Errorf("the file written does not load: %w", err)
	}
	return path, nil
}
