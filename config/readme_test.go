package config

import (
	"os"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// TestDocListsEveryKey keeps docs/config.md, the configuration reference,
// in step with the embedded defaults: every leaf key of max_expected.yaml
// must have a row, and every row must name a real key.
func TestDocListsEveryKey(t *testing.T) {
	readme, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(Default, &doc); err != nil {
		t.Fatal(err)
	}
	var keys []string
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		if n.Kind == yaml.MappingNode && len(n.Content) > 0 && path != "skills" && path != "pricing.models" {
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], joinKey(path, n.Content[i].Value))
			}
			return
		}
		keys = append(keys, path)
	}
	walk(doc.Content[0], "")
	rows := map[string]bool{}
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows[strings.Trim(strings.Split(line, "|")[1], " `")] = true
		}
	}
	for _, k := range keys {
		if !rows[k] {
			t.Errorf("docs/config.md's table lacks %q", k)
		}
		delete(rows, k)
	}
	for k := range rows {
		if strings.Contains(k, ".") || k == "skills" || k == "default_complexity" {
			t.Errorf("docs/config.md documents %q, which max_expected.yaml does not have", k)
		}
	}
	if len(keys) < 25 {
		t.Fatalf("only %d keys found: %v", len(keys), keys)
	}
}
