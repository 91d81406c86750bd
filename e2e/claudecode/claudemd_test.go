package claudecode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/evolve"
	"github.com/sepad/sepad/internal/fakeclaude"
)

// TestClaudeMDByName (issue 36 items 9 and 10): the session's base prompt
// is "CLAUDE.md" in every view, with the instruction files it covers;
// show prints the files' text and diff their diff; evolve sends the
// mutator the project CLAUDE.md's own text. Two real sessions, the
// project's CLAUDE.md edited between them.
func TestClaudeMDByName(t *testing.T) {
	for _, c := range clients(t) {
		if c.Version != DefaultVersions[0] {
			continue // one version: the views do not depend on it
		}
		e := newEnv(t, c)
		// A command mutator: one edit of the project CLAUDE.md's text.
		mut := e.write(filepath.Join(e.Root, "mutator.sh"), "#!/bin/sh\ncat >/dev/null\n"+
			`echo '[{"op": "replace", "passage": "Run the tests twice.", "text": "Run the tests twice, then the linter.", "reason": "lint"}]'`+"\n")
		os.Chmod(mut, 0o755)
		cfg := e.write(filepath.Join(e.State, "config.yaml"), "mutation:\n  mutator: ["+mut+"]\n")
		e.Env = append(e.Env, "SEPA_CONFIG="+cfg)
		e.write(filepath.Join(e.Home, ".claude", "CLAUDE.md"), "# User\nBe brief.\n")
		e.write("CLAUDE.md", "# Project\n\nRun the tests first.\n\nSee @docs/guide.md for more.\n")
		e.write("docs/guide.md", "# Guide\nSmall commits.\n")
		d := e.startDaemon("--http", freeAddr(t))
		e.API.Set("cm1", fakeclaude.Script{{Tools: []fakeclaude.Tool{bash("echo hi")}}, {Text: answer}})
		e.claude("-p", "look @@cm1@@")
		d.waitExecutions(1)
		// The first text is kept before the edit.
		waitUntil(t, "v1's files kept", func() bool {
			out, _, _ := e.sepad("show", "CLAUDE.md")
			return strings.Contains(out, "Run the tests first.") && strings.Contains(out, "Be brief.")
		})
		e.write("CLAUDE.md", "# Project\n\nRun the tests twice.\n\nSee @docs/guide.md for more.\n")
		e.API.Set("cm2", fakeclaude.Script{{Tools: []fakeclaude.Tool{bash("echo again")}}, {Text: answer}})
		// A proposal needs 3 runs of the version in force, and one that
		// is not stable: the last one's call fails.
		e.API.Set("cm2f", fakeclaude.Script{{Tools: []fakeclaude.Tool{bash("ls /nonexistent-sepad-dir")}}, {Text: "It failed."}})
		for _, k := range []string{"cm2", "cm2", "cm2f"} {
			e.claude("-p", "again @@"+k+"@@")
		}
		if xs := d.waitExecutions(4); len(xs) != 4 {
			t.Fatalf("want 4 executions, got %+v", xs)
		}

		views := map[string]string{}
		for _, args := range [][]string{{"grades"}, {"grades", "--all-versions"}, {"versions", "CLAUDE.md"}, {"executions"},
			{"history", "CLAUDE.md"}, {"explain", "last"}, {"sessions"}, {"show", "CLAUDE.md"}, {"show", "CLAUDE.md@v1"},
			{"diff", "CLAUDE.md", "v1", "v2"}, {"completion", "--skills"}} {
			out, errOut, code := e.sepad(args...)
			if code != 0 {
				t.Fatalf("sepad %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			views[strings.Join(args, " ")] = out
			if strings.Contains(out, "_session") {
				t.Errorf("sepad %s names _session:\n%s", strings.Join(args, " "), out)
			}
		}
		contains := func(view, want string) {
			t.Helper()
			if !strings.Contains(views[view], want) {
				t.Errorf("sepad %s lacks %q:\n%s", view, want, views[view])
			}
		}
		contains("grades", "\nCLAUDE.md ")
		contains("grades", "CLAUDE.md v2 (proj) covers ~/.claude/CLAUDE.md, CLAUDE.md, docs/guide.md\n")
		contains("grades --all-versions", "CLAUDE.md v1 (proj) covers ~/.claude/CLAUDE.md, CLAUDE.md, docs/guide.md\n")
		contains("versions CLAUDE.md", "CLAUDE.md ("+e.Project+")")
		contains("completion --skills", "CLAUDE.md\n")
		// show: the files' text, not "path  hash" lines.
		contains("show CLAUDE.md", "\n==> CLAUDE.md (")
		contains("show CLAUDE.md", "Run the tests twice.")
		contains("show CLAUDE.md", "==> ~/.claude/CLAUDE.md (")
		contains("show CLAUDE.md", "Be brief.")
		contains("show CLAUDE.md", "Small commits.")
		contains("show CLAUDE.md@v1", "Run the tests first.")
		// diff: the changed file's diff, the others unchanged.
		contains("diff CLAUDE.md v1 v2", "--- a/CLAUDE.md\tv1 ")
		contains("diff CLAUDE.md v1 v2", "\n-Run the tests first.\n+Run the tests twice.\n")
		if strings.Contains(views["diff CLAUDE.md v1 v2"], "a/docs/guide.md") || strings.Contains(views["diff CLAUDE.md v1 v2"], e.Home) {
			t.Errorf("diff names files that did not change, or hashes' paths:\n%s", views["diff CLAUDE.md v1 v2"])
		}
		var g struct {
			Grades []struct{ Skill, Display string } `json:"grades"`
		}
		out, _, _ := e.sepad("grades", "--json")
		if json.Unmarshal([]byte(out), &g) != nil || len(g.Grades) != 1 || g.Grades[0].Skill != "_session" || g.Grades[0].Display != "CLAUDE.md" {
			t.Errorf("grades --json keeps the id _session beside the display name CLAUDE.md:\n%s", out)
		}

		// evolve: the mutator is sent the project CLAUDE.md's text.
		req, errOut, code := e.sepad("evolve", "CLAUDE.md", "--dry-run")
		if code != 0 {
			t.Fatalf("evolve --dry-run: exit %d\n%s%s", code, req, errOut)
		}
		i, j := strings.Index(req, evolve.BeginText), strings.Index(req, evolve.EndText)
		if i < 0 || j < i {
			t.Fatalf("no current text in the request:\n%s", req)
		}
		if text := strings.TrimSpace(req[i+len(evolve.BeginText) : j]); text != "# Project\n\nRun the tests twice.\n\nSee @docs/guide.md for more." {
			t.Errorf("the request's current text is not the project CLAUDE.md's:\n%s", text)
		}
		if strings.Contains(req, "_session") {
			t.Errorf("the request names _session:\n%s", req)
		}
		// The mutator's edit is written to the project CLAUDE.md only, and
		// its version is the manifest the next real session lists: that
		// session's run is the candidate's.
		out, errOut, code = e.sepad("evolve", "CLAUDE.md", "--json")
		var a struct {
			Outcome string `json:"outcome"`
			To      string `json:"to"`
			Words   string `json:"words"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &a) != nil || a.Outcome != "candidate" || a.To == "" {
			t.Fatalf("evolve: exit %d %+v\n%s%s", code, a, out, errOut)
		}
		if b, _ := os.ReadFile(filepath.Join(e.Project, "CLAUDE.md")); string(b) != "# Project\n\nRun the tests twice, then the linter.\n\nSee @docs/guide.md for more.\n" {
			t.Errorf("CLAUDE.md after evolve: %q", b)
		}
		if b, _ := os.ReadFile(filepath.Join(e.Home, ".claude", "CLAUDE.md")); string(b) != "# User\nBe brief.\n" {
			t.Errorf("the user's CLAUDE.md was written: %q", b)
		}
		if !strings.Contains(a.Words, "evolved CLAUDE.md v2 → v3") {
			t.Errorf("evolve's words: %s", a.Words)
		}
		e.API.Set("cm3", fakeclaude.Script{{Tools: []fakeclaude.Tool{bash("echo third")}}, {Text: answer}})
		e.claude("-p", "once more @@cm3@@")
		xs := d.waitExecutions(5)
		var newest struct {
			Executions []struct{ Hash string } `json:"executions"`
		}
		out, _, _ = e.sepad("executions", "--json", "--limit", "1") // newest first
		if json.Unmarshal([]byte(out), &newest) != nil || len(xs) != 5 || len(newest.Executions) != 1 || newest.Executions[0].Hash != a.To {
			t.Errorf("the session after evolve ran %s, the proposal is %q (%d executions)", out, a.To, len(xs))
		}
		diff, _, _ := e.sepad("diff", "CLAUDE.md", "v2", "v3")
		if !strings.Contains(diff, "\n-Run the tests twice.\n+Run the tests twice, then the linter.\n") {
			t.Errorf("diff CLAUDE.md v2 v3:\n%s", diff)
		}
		d.stop()
	}
}
