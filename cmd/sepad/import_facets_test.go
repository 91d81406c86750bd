package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/query"
)

// TestImportFacets: /insights facets in a Claude Code configuration
// directory become labels (source insights) of their session's
// main-thread executions, except one labelled by hand; a second import
// changes nothing; a bad file is reported, not fatal.
func TestImportFacets(t *testing.T) {
	home := t.TempDir()
	cfg := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	run := func(t *testing.T, args ...string) (string, string) {
		t.Helper()
		var o, e bytes.Buffer
		if code := runMain(append(args, "--home", home), strings.NewReader(""), &o, &e); code != 0 {
			t.Fatalf("sepad %v: exit %d: %s%s", args, code, o.String(), e.String())
		}
		return o.String(), e.String()
	}
	run(t, "import", filepath.Join("..", "..", "testdata", "sessions", "hook_raw.jsonl"))
	var list query.Executions
	out, _ := run(t, "executions", "--json")
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	const session = "5f0c1e2a-1111-4c3b-9d7e-aaaaaaaaaaaa"
	var ids []string
	for _, x := range list.Executions {
		if x.SessionID == session {
			ids = append(ids, x.ID)
		}
	}
	if len(ids) < 3 {
		t.Fatalf("executions of the session: %v\n%s", ids, out)
	}
	run(t, "label", ids[0], "success", "--rater", "ana")

	facets := filepath.Join(cfg, "usage-data", "facets")
	if err := os.MkdirAll(facets, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string]string{
		session + ".json": `{"session_id":"` + session + `","underlying_goal":"deploy the fix","outcome":"not_achieved","brief_summary":"Deployed the wrong branch.","claude_helpfulness":"slightly_helpful"}`,
		"0b7c9d2e-0000-4000-8000-000000000000.json": `{"outcome":"fully_achieved"}`,
		"broken.json": `{"outcome":`,
	} {
		if err := os.WriteFile(filepath.Join(facets, name), []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	out, _ = run(t, "import", "--facets")
	for _, want := range []string{"read 2 facets from " + facets + ": 1 session with executions here", "(source insights)", "labelled by hand", "skipped " + filepath.Join(facets, "broken.json")} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	var rep importer.FacetsReport
	out, _ = run(t, "import", "--facets", "--json")
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Labelled) != 0 || len(rep.Kept) < 3 {
		t.Errorf("second import: %+v", rep)
	}
	for _, id := range ids {
		var x query.Explain
		out, _ := run(t, "explain", id, "--json")
		if err := json.Unmarshal([]byte(out), &x); err != nil {
			t.Fatal(err)
		}
		if len(x.Labels) == 0 {
			if x.AgentID == "" {
				t.Errorf("%s: not labelled", id)
			}
			continue
		}
		l := x.Labels[0]
		switch {
		case id == ids[0]:
			if l.Rater != "ana" || len(x.Labels) != 1 {
				t.Errorf("the hand label was overridden: %+v", x.Labels)
			}
		case x.AgentID != "":
			t.Errorf("a subagent's run was labelled: %+v", l)
		default:
			if l.Source != "insights" || l.Outcome != "failure" || l.Score != 0 || !strings.Contains(l.Note, "Deployed the wrong branch.") || len(x.Labels) != 1 {
				t.Errorf("%s: labels %+v", id, x.Labels)
			}
		}
	}
	// A directory without facets is a usage error naming it.
	var o, e bytes.Buffer
	if code := runMain([]string{"import", "--facets", t.TempDir(), "--home", home}, strings.NewReader(""), &o, &e); code != exitUsage || !strings.Contains(e.String(), "no /insights facets") {
		t.Errorf("empty directory: exit %d, %s", code, e.String())
	}
}
