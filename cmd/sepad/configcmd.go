package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sepad/sepad/config"
)

func init() {
	register("config", "write a commented configuration file (init), or print the effective values and where each comes from (show)", runConfig)
}

// runConfig is `sepad config init [--force] [FILE]` and `sepad config show`.
func runConfig(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("config", stderr)
	cfgFlag := fs.String("config", "", "configuration file (default $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml)")
	force := fs.Bool("force", false, "init: replace an existing file")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usageErrorf("config takes init or show")
	}
	switch pos[0] {
	case "init":
		if len(pos) > 2 {
			return usageErrorf("config init takes at most one FILE")
		}
		path := *cfgFlag
		if len(pos) == 2 {
			path = pos[1]
		}
		return configInit(stdout, path, *force)
	case "show":
		if len(pos) != 1 {
			return usageErrorf("config show takes no arguments")
		}
		return configShow(stdout, *cfgFlag)
	}
	return usageErrorf("no action %q; want init or show", pos[0])
}

// defaultConfigPath is where sepad looks for a user file when neither
// --config nor $SEPA_CONFIG names one.
func defaultConfigPath() (string, error) {
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

// configInit writes the embedded defaults with every setting commented
// out: the file changes nothing until a line is uncommented.
func configInit(w io.Writer, path string, force bool) error {
	if path == "" {
		p, err := defaultConfigPath()
		if err != nil {
			return err
		}
		path = p
	}
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists: edit it, or replace it with --force", path)
	}
	var b bytes.Buffer
	b.WriteString("# sepad configuration, written by `sepad config init`.\n# Every setting is commented out: uncomment and change only what you need;\n# the rest keeps its default. `sepad config show` prints what is in force.\n\n")
	for _, l := range strings.SplitAfter(string(config.Default), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			b.WriteString(l)
			continue
		}
		b.WriteString("# " + l)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		return err
	}
	if _, err := config.Load(path); err != nil {
		return fmt.Errorf("the file written does not load: %w", err)
	}
	fmt.Fprintf(w, "wrote %s\n", path)
	return nil
}

// configShow prints every key in force with its value and its source:
// "default", or FILE:LINE of the user file that sets it.
func configShow(w io.Writer, flagPath string) error {
	path := config.Path(flagPath)
	if _, err := config.Load(path); err != nil {
		return err
	}
	how := "none: built-in defaults only"
	switch {
	case flagPath != "":
		how = path + " (from --config)"
	case os.Getenv("SEPA_CONFIG") != "":
		how = path + " (from $SEPA_CONFIG)"
	case path != "":
		how = path + " (the default location)"
	}
	fmt.Fprintf(w, "config file  %s\n\n", how)
	var def yaml.Node
	if err := yaml.Unmarshal(config.Default, &def); err != nil {
		return err
	}
	var user yaml.Node
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := yaml.Unmarshal(b, &user); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE\tFROM")
	var walk func(prefix string, d, u *yaml.Node)
	walk = func(prefix string, d, u *yaml.Node) {
		keys := map[string]bool{}
		visit := func(k string, dv, uv *yaml.Node) {
			key := strings.TrimPrefix(prefix+"."+k, ".")
			if dv != nil && dv.Kind == yaml.MappingNode && len(dv.Content) > 0 && (uv == nil || uv.Kind == yaml.MappingNode) {
				walk(key, dv, uv)
				return
			}
			v, from := dv, "default"
			if uv != nil {
				v, from = uv, fmt.Sprintf("%s:%d", path, uv.Line)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", key, flow(v), from)
		}
		for i := 0; d != nil && i+1 < len(d.Content); i += 2 {
			k := d.Content[i].Value
			keys[k] = true
			visit(k, d.Content[i+1], mapValue(u, k))
		}
		for i := 0; u != nil && i+1 < len(u.Content); i += 2 {
			if k := u.Content[i].Value; !keys[k] {
				visit(k, nil, u.Content[i+1])
			}
		}
	}
	walk("", docRoot(&def), docRoot(&user))
	return tw.Flush()
}

func docRoot(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return n.Content[0]
	}
	if n.Kind == yaml.MappingNode {
		return n
	}
	return nil
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// flow prints a node on one line (flow style).
func flow(n *yaml.Node) string {
	if n == nil {
		return "-"
	}
	c := *n
	c.Style = yaml.FlowStyle
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	b, err := yaml.Marshal(&c)
	if err != nil {
		return n.Value
	}
	return strings.TrimSpace(string(b))
}
