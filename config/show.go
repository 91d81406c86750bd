package config

import (
	"fmt"
	"os"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Setting is one key in force: its value on one line and where it
// comes from, "default" or FILE:LINE of the user file that sets it.
type Setting struct {
	Key, Value, From string
}

// Settings lists every key in force with the file at path ("": the
// defaults only) laid over the defaults, in the defaults' order, then
// the keys only the file has. A file that does not load is an error.
func Settings(path string) ([]Setting, error) {
	if _, err := Load(path); err != nil {
		return nil, err
	}
	var def yaml.Node
	if err := yaml.Unmarshal(Default, &def); err != nil {
		return nil, err
	}
	var user yaml.Node
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if err := yaml.Unmarshal(b, &user); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var out []Setting
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
			if key == "skills" {
				v = sessionByName(v)
			}
			out = append(out, Setting{Key: key, Value: flow(v), From: from})
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
	return out, nil
}

// sessionByName shows the session's base prompt under the name people
// use, CLAUDE.md, where the file says _session (both configure it).
func sessionByName(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	c := *n
	c.Content = append([]*yaml.Node(nil), n.Content...)
	for i := 0; i+1 < len(c.Content); i += 2 {
		if c.Content[i].Value == sessionSkill {
			k := *c.Content[i]
			k.Value = sessionDisplay
			c.Content[i] = &k
		}
	}
	return &c
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
