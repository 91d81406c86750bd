package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// docExample returns the n-th (from 0) ```json block of docs/api.md after
// the heading "### "+heading, decoded.
func docExample(t *testing.T, heading string, n int) any {
	t.Helper()
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n### "+heading+"\n")
	if !ok {
		t.Fatalf("docs/api.md has no heading %q", heading)
	}
	if i := strings.Index(rest, "\n### "); i >= 0 {
		rest = rest[:i]
	}
	blocks := strings.Split(rest, "```json\n")
	if len(blocks) <= n+1 {
		t.Fatalf("docs/api.md %q has no JSON example %d", heading, n)
	}
	block, _, _ := strings.Cut(blocks[n+1], "```")
	var v any
	if err := json.Unmarshal([]byte(block), &v); err != nil {
		t.Fatalf("docs/api.md %q example %d is not JSON: %v", heading, n, err)
	}
	return v
}

// sameShape reports where got lacks a field of the documented example or
// holds another JSON type there: objects must have every documented key
// (more are allowed), arrays are compared by their first elements.
func sameShape(doc, got any, path string) []string {
	switch d := doc.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path + ": not an object"}
		}
		var out []string
		for k, v := range d {
			gv, ok := g[k]
			if !ok {
				out = append(out, path+"."+k+": missing")
				continue
			}
			out = append(out, sameShape(v, gv, path+"."+k)...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			return []string{path + ": not an array"}
		}
		if len(d) > 0 && len(g) > 0 {
			return sameShape(d[0], g[0], path+"[0]")
		}
	case string:
		if _, ok := got.(string); !ok {
			return []string{path + ": not a string"}
		}
	case float64:
		if _, ok := got.(float64); !ok && got != nil {
			return []string{path + ": not a number"}
		}
	case bool:
		if _, ok := got.(bool); !ok {
			return []string{path + ": not a boolean"}
		}
	}
	return nil
}

// checkDocumented fails when a command's --json output does not have the
// shape of its documented example.
func checkDocumented(t *testing.T, heading string, n int, out string) {
	t.Helper()
	var got any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Errorf("%s: output is not one JSON document: %v\n%s", heading, err, out)
		return
	}
	for _, p := range sameShape(docExample(t, heading, n), got, "") {
		t.Errorf("%s: the output differs from docs/api.md's example at %s", heading, p)
	}
}
