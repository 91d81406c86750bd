package e2e

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/mutation"
)

// gradeRows runs `sepad grades SKILL --all-versions --json` (through the
// daemon's socket while it runs).
func gradeRows(t *testing.T, p *project) []map[string]any {
	t.Helper()
	out, errOut, code := sepad(t, p.env(), nil, "grades", "deploy", "--all-versions", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("grades: exit %d %s", code, errOut)
	}
	var doc struct {
		Grades []map[string]any `json:"grades"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("grades JSON: %v\n%s", err, out)
	}
	return doc.Grades
}

func rowOf(rows []map[string]any, hash string) map[string]any {
	for _, r := range rows {
		if r["hash"] == hash {
			return r
		}
	}
	return nil
}

func currentHashes(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		if r["current"] == true {
			out = append(out, r["hash"].(string))
		}
	}
	return out
}

// TestViewsTellTheTruth (issue 15, point 4): `*` and "current" are the
// content of the file now, also after an edit in the middle of a session
// that has not run yet; a rollback skipped because a person edited the
// file shows as "conflict", never as "rolled back".
func TestViewsTellTheTruth(t *testing.T) {
	p := newProject(t)
	p.config("aggregate:\n  min_samples: 5\n")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	for i := 0; i < 5; i++ {
		p.turn(0, goodAnswer)
	}
	p.release()
	time.Sleep(300 * time.Millisecond)

	// An edit in the middle of the session: in force before it runs.
	p.writeSkill("Just try random commands.")
	v2b, _ := os.ReadFile(p.skill)
	v2 := mutation.Hash(v2b)
	var rows []map[string]any
	waitFor(t, "the edit recorded", func() bool { rows = gradeRows(t, p); return rowOf(rows, v2) != nil })
	if cur := currentHashes(rows); len(cur) != 1 || cur[0] != v2 {
		t.Fatalf("current after a mid-session edit = %v, want only %s (the file now)", cur, v2)
	}

	// v2 is graded F, but a person edits the file before the rule fires:
	// the rollback is skipped, and every view says so.
	for i := 0; i < 5; i++ {
		p.turn(4, badAnswer)
	}
	human := "---\nname: deploy\n---\n# Deploy\n\nA human rewrote this.\n"
	writeFile(t, p.skill, human)
	hh := mutation.Hash([]byte(human))
	p.release() // releases v2's fifth execution: the rule fires now
	waitFor(t, "v2's skipped rollback", func() bool {
		rows = gradeRows(t, p)
		r := rowOf(rows, v2)
		return r != nil && r["status"] != "candidate" && r["status"] != "ungraded"
	})
	if r := rowOf(rows, v2); r["status"] != "conflict" {
		t.Errorf("v2's status after a skipped rollback = %v, want conflict", r["status"])
	}
	for _, r := range rows {
		if r["status"] == "rolled back" {
			t.Errorf("a version shows as rolled back, but nothing was rolled back: %v", r)
		}
	}
	if cur := currentHashes(rows); len(cur) != 1 || cur[0] != hh {
		t.Errorf("current = %v, want the person's edit %s", cur, hh)
	}
	d.stop(t)
	if b, _ := os.ReadFile(p.skill); string(b) != human {
		t.Fatalf("the person's edit was overwritten: %q", b)
	}
	out, errOut, code := sepad(t, p.env(), nil, "versions", "deploy", "--home", p.home)
	if code != 0 {
		t.Fatalf("versions: %d %s", code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, v2) && !strings.Contains(line, "conflict") {
			t.Errorf("versions shows v2 as %q, want conflict", line)
		}
		if strings.Contains(line, " *") != strings.Contains(line, hh) && strings.HasPrefix(line, "v") {
			t.Errorf("versions marks the wrong line with *: %q", line)
		}
	}
}
