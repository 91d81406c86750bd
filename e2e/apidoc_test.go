package e2e

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// docExample returns the n-th (from 0) ```json block of docs/api.md after
// the heading "### "+heading (or "## "+heading), decoded.
func docExample(t *testing.T, heading string, n int) any {
	t.Helper()
	b, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n### "+heading+"\n")
	if !ok {
		if _, rest, ok = strings.Cut(string(b), "\n## "+heading+"\n"); !ok {
			t.Fatalf("docs/api.md has no heading %q", heading)
		}
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
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
		// "…" marks what an example leaves out: the shape is the rest.
		if err := json.Unmarshal([]byte(stripElisions(block)), &v); err != nil {
			t.Fatalf("docs/api.md %q example %d is not JSON, even without its … elisions: %v", heading, n, err)
		}
	}
	return v
}

// elision matches "…" where an example leaves members or elements out
// (with the comma before or after it).
var elision = regexp.MustCompile(`,\s*…|…\s*,?`)

func stripElisions(s string) string { return elision.ReplaceAllString(s, "") }

// freeKeys are the objects whose keys are data (event names, kinds), not
// fields: only their being objects is compared. optional are the fields
// docs/api.md says may be left out.
var (
	freeKeys = map[string]bool{".events": true}
	optional = map[string]bool{".commit": true, ".commit_time": true,
		// An execution's outcome (package outcome, omitempty): no runs or
		// claims without them; a run that passed has no why and no
		// failing tests.
		".outcome.runs": true, ".outcome.claims": true, ".outcome.runs[0].why": true, ".outcome.runs[0].failed_tests": true}
)

// sameShape reports where got lacks a field of the documented example or
// holds another JSON type there: objects must have every documented key
// (more are allowed), arrays are compared by their first elements; null
// stands for any type (a value not known: `"observed": null`).
func sameShape(doc, got any, path string) []string {
	if got == nil {
		return nil
	}
	switch d := doc.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path + ": not an object"}
		}
		if freeKeys[path] {
			return nil
		}
		var out []string
		for k, v := range d {
			gv, ok := g[k]
			if !ok && optional[path+"."+k] {
				continue
			}
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
		if _, ok := got.(float64); !ok {
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
