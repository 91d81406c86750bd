package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
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
	skipLong(t)
	p := newProject(t)
	p.config("aggregate:\n  min_samples: 5\n")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	p.turns(5, 0, goodAnswer)
	p.release()
	time.Sleep(300 * time.Millisecond)

	// An edit in the middle of the session: in force before it runs.
	p.writeSkill("Just try random commands.")
	v2b, _ := os.ReadFile(p.skill)
	v2 := promptfile.Hash(v2b)
	var rows []map[string]any
	waitFor(t, "the edit recorded", func() bool { rows = gradeRows(t, p); return rowOf(rows, v2) != nil })
	if cur := currentHashes(rows); len(cur) != 1 || cur[0] != v2 {
		t.Fatalf("current after a mid-session edit = %v, want only %s (the file now)", cur, v2)
	}

	// v2 is graded F, but a person edits the file before the rule fires:
	// the rollback is skipped, and every view says so.
	p.turns(5, 4, badAnswer)
	human := "---\nname: deploy\n---\n# Deploy\n\nA human rewrote this.\n"
	writeFile(t, p.skill, human)
	hh := promptfile.Hash([]byte(human))
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
	// The person's edit is current once the daemon has seen the file
	// change (its watcher, which a loaded machine may delay).
	waitFor(t, "the person's edit current", func() bool {
		rows = gradeRows(t, p)
		cur := currentHashes(rows)
		return len(cur) == 1 && cur[0] == hh
	})
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

// TestEnoughEvidence (issue 15 point 3), with the daemon as a subprocess:
// a safety rollback waits for mutation.min_samples runs of the version and
// says its numbers; `sepad accept` below min_samples warns that the
// baseline is thin and records it.
func TestEnoughEvidence(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	v1, _ := os.ReadFile(p.skill)
	d := startDaemonEnv(t, p)
	p.turns(5, 0, goodAnswer)
	p.release()
	v2b := p.edit("Just try random commands.")
	v2 := promptfile.Hash(v2b)
	p.turns(4, 4, badAnswer)
	p.release()
	waitFor(t, "four runs of v2 scored", func() bool {
		r := rowOf(gradeRows(t, p), v2)
		return r != nil && r["n"] == 4.0
	})
	time.Sleep(300 * time.Millisecond)
	if b, _ := os.ReadFile(p.skill); string(b) != string(v2b) {
		t.Fatalf("rolled back after 4 runs (graded F from 3; min_samples is 5)")
	}
	p.turn(4, badAnswer)
	p.release()
	waitFor(t, "v2 rolled back after its fifth run", fileIs(p.skill, string(v1)))
	time.Sleep(700 * time.Millisecond)

	// v3 runs twice; accepted by hand, it is a thin baseline.
	p.writeSkill("Run the checks in parallel, deploy, then verify.")
	time.Sleep(600 * time.Millisecond)
	p.turn(0, goodAnswer)
	p.turn(0, goodAnswer)
	p.release()
	time.Sleep(1200 * time.Millisecond)
	d.stop(t)

	out, errOut, code := sepad(t, p.env(), nil, "decisions", "--home", p.home)
	if code != 0 {
		t.Fatalf("decisions: %d %s", code, errOut)
	}
	for _, w := range []string{"graded F", "(F) over 5 runs", "at least 5 runs", "over 5 runs",
		// v2 failed every call and claimed nothing: the calls made the
		// difference. The outcome, present in v1's runs only, is left out
		// of the comparison, not counted as zero (issue 36 item 3).
		"v2 against v1: tool success rate −1.00"} {
		contains(t, out, w)
	}
	if out, _, _ := sepad(t, p.env(), nil, "decisions", "-v", "--home", p.home); !strings.Contains(out, "grade_f") {
		t.Errorf("decisions -v lacks the rule id grade_f:\n%s", out)
	}
	out, errOut, code = sepad(t, p.env(), nil, "accept", "deploy", "--home", p.home, "--json")
	if code != 0 {
		t.Fatalf("accept: %d %s %s", code, out, errOut)
	}
	var rec mutation.Record
	if err := json.Unmarshal([]byte(out), &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.ThinBaseline || !strings.Contains(rec.Warning, "2 scored runs, fewer than mutation.min_samples (5)") {
		t.Fatalf("accept on 2 runs: %+v", rec)
	}
}

// TestPersonsEditIsAsked (issue 15 point 2), with the daemon as a
// subprocess and the default configuration: a version a person wrote is
// not rewritten when a rule would roll it back; it shows as "would roll
// back", and `sepad rollback` does it when the person asks.
func TestPersonsEditIsAsked(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.askEdits = true
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	v1, _ := os.ReadFile(p.skill)
	d := startDaemonEnv(t, p)
	p.turns(5, 0, goodAnswer)
	p.release()
	edit := p.edit("Just try random commands.")
	v2 := promptfile.Hash(edit)
	p.turns(5, 4, badAnswer)
	p.release()
	waitFor(t, "v2 judged", func() bool {
		r := rowOf(gradeRows(t, p), v2)
		return r != nil && r["status"] == "would roll back"
	})
	time.Sleep(500 * time.Millisecond)
	d.stop(t)
	if b, _ := os.ReadFile(p.skill); string(b) != string(edit) {
		t.Fatalf("a person's edit was rewritten without asking: %q", b)
	}
	recs := decisions(t, p.home)
	if len(recs) != 1 || recs[0].Kind != mutation.KindWouldRollBack || recs[0].Applied ||
		!strings.Contains(recs[0].Words, "sepad rollback deploy") {
		t.Fatalf("decisions %+v", recs)
	}
	out, errOut, code := sepad(t, p.env(), nil, "rollback", "deploy", "--home", p.home)
	if code != 0 {
		t.Fatalf("sepad rollback: %d %s %s", code, out, errOut)
	}
	if b, _ := os.ReadFile(p.skill); string(b) != string(v1) {
		t.Fatalf("sepad rollback did not restore v1: %q", b)
	}
	// The person changes their mind: pin the edit (restored first).
	out, errOut, code = sepad(t, p.env(), nil, "pin", "deploy", "v2", "--home", p.home)
	if code != 0 || !strings.Contains(out, "pinned to v2") {
		t.Fatalf("sepad pin: %d %s %s", code, out, errOut)
	}
	if b, _ := os.ReadFile(p.skill); string(b) != string(edit) {
		t.Fatalf("sepad pin deploy v2 did not restore v2: %q", b)
	}
	if r := rowOf(gradeRows(t, p), v2); r == nil || r["status"] != "pinned" || r["current"] != true {
		t.Fatalf("the pinned version's row: %v", r)
	}
	out, errOut, code = sepad(t, p.env(), nil, "rollback", "deploy", "--home", p.home)
	if code == 0 || !strings.Contains(out+errOut, "sepad unpin deploy") {
		t.Fatalf("rollback of a pinned skill: %d %s %s", code, out, errOut)
	}
	if _, errOut, code = sepad(t, p.env(), nil, "unpin", "deploy", "--home", p.home); code != 0 {
		t.Fatalf("sepad unpin: %d %s", code, errOut)
	}
}

// TestUndecidedSaysHowLong (issue 15 point 5), with the daemon as a
// subprocess: an undecided candidate says about how many more runs it
// needs in grades, versions, status and the API, with its last look in
// words (means, n, difference and interval, the rule).
func TestUndecidedSaysHowLong(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	writeFile(t, filepath.Join(p.home, "config.yaml"), "mutation:\n  method: sequential\n  min_samples: 5\n  debounce: 100ms\n  cooldown_executions: 0\n  rollback_edits: auto\n")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	p.turns(5, 0, goodAnswer)
	p.release()
	v2b := p.edit("Run the checks, then make deploy, then tell me.")
	v2 := promptfile.Hash(v2b)
	p.turns(5, 1, goodAnswer)
	p.release()
	var row map[string]any
	waitFor(t, "v2 looked at", func() bool {
		row = rowOf(gradeRows(t, p), v2)
		return row != nil && row["n"] == 5.0 && row["needed_more"] != nil
	})
	n, _ := row["needed_more"].(float64)
	words, _ := row["pending"].(string)
	if row["status"] != "candidate" || n < 1 || !strings.Contains(words, "v2 undecided: ") ||
		!strings.Contains(words, fmt.Sprintf("needs about %d more run", int(n))) || !strings.Contains(words, "after 5 and 5 runs") ||
		!strings.Contains(words, "interval") && !strings.Contains(words, "not enough runs to compare yet (5 and 5)") ||
		!strings.Contains(words, "not yet clearly better or worse than v1") || strings.Contains(words, " z ") {
		t.Fatalf("the candidate's row: %v", row)
	}
	st := statusJSON(t, p.home)
	und, _ := st["undecided"].([]any)
	if len(und) != 1 || und[0].(map[string]any)["needed_more"] != n {
		t.Fatalf("status undecided: %v", st["undecided"])
	}
	out, errOut, code := sepad(t, p.env(), nil, "versions", "deploy", "--home", p.home)
	needs := fmt.Sprintf("candidate, needs ~%d runs", int(n))
	if int(n) == 1 {
		needs = "candidate, needs ~1 run"
	}
	if code != 0 || !strings.Contains(out, needs) || !strings.Contains(out, "deploy: v2 undecided: ") {
		t.Fatalf("versions: %d %s\n%s", code, errOut, out)
	}
	out, _, _ = sepad(t, p.env(), nil, "status", "--home", p.home)
	contains(t, out, fmt.Sprintf("needs about %d more run", int(n)))
	d.stop(t)
}

// TestOneDaemonPerProject (issue 15 point 6), with two daemons as
// subprocesses: the first home to start holds the project; a second
// daemon with another home says so when it starts and never writes
// there, recording a conflict that names the holding home.
func TestOneDaemonPerProject(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.config("")
	p.writeSkill("Run the checks, then make deploy.")
	a := startDaemonEnv(t, p)
	claim := filepath.Join(p.dir, ".claude", ".sepad-home")
	waitFor(t, "home A's claim", func() bool { b, _ := os.ReadFile(claim); return strings.TrimSpace(string(b)) == p.home })

	pb := *p
	pb.home = filepath.Join(filepath.Dir(p.home), "state-b")
	if _, errOut, code := sepad(t, pb.env(), nil, "install", "--project", p.dir); code != 0 {
		t.Fatalf("install for home B: %s", errOut)
	}
	pb.config("")
	b := startDaemonEnv(t, &pb)
	waitFor(t, "home B's warning", func() bool { return strings.Contains(b.stderr.String(), "another sepad home holds this project") })
	contains(t, b.stderr.String(), p.home)

	// Events reach home B, whose daemon would roll back v2: refused.
	pb.turns(5, 0, goodAnswer)
	pb.release()
	bad := pb.edit("Just try random commands.") // settled as home B, which gets the events
	pb.turns(5, 4, badAnswer)
	pb.release()
	waitFor(t, "home B's conflict", func() bool { return strings.Contains(b.stderr.String(), "another sepad home holds the project") })
	b.stop(t)
	a.stop(t)
	if got, _ := os.ReadFile(p.skill); string(got) != string(bad) {
		t.Fatalf("home B wrote in a project home A holds: %q", got)
	}
	recs := decisions(t, pb.home)
	if len(recs) == 0 || recs[len(recs)-1].Kind != mutation.KindConflict || !strings.Contains(recs[len(recs)-1].Words, "belongs to the sepad home "+p.home) {
		t.Fatalf("home B's decisions: %+v", recs)
	}
	if b, _ := os.ReadFile(claim); strings.TrimSpace(string(b)) != p.home {
		t.Fatalf("the claim changed hands: %q", b)
	}
}

// TestPerSkillSettings (issue 15 point 2): skills.<name>.mutation
// overrides a mutation key for one skill in the daemon, and a wrong key
// there stops `sepad run` with its file, line and key.
func TestPerSkillSettings(t *testing.T) {
	skipLong(t)
	p := newProject(t)
	p.askEdits = true
	p.config("skills:\n  deploy:\n    complexity: medium\n    mutation:\n      rollback_edits: auto\n")
	p.writeSkill("Run the checks, then make deploy.")
	v1, _ := os.ReadFile(p.skill)
	d := startDaemonEnv(t, p)
	p.turns(5, 0, goodAnswer)
	p.release()
	p.edit("Just try random commands.")
	p.turns(5, 4, badAnswer)
	p.release()
	waitFor(t, "deploy's edit rolled back (its own rollback_edits: auto)", fileIs(p.skill, string(v1)))
	d.stop(t)

	p.config("skills:\n  deploy:\n    mutation:\n      min_sample: 3\n")
	cfg := filepath.Join(p.home, "config.yaml")
	_, errOut, code := sepad(t, p.env(), nil, "run", "--home", p.home)
	if code == 0 || !strings.Contains(errOut, cfg+":10: key skills.deploy.mutation.min_sample: unknown key") {
		t.Fatalf("sepad run with a wrong per-skill key: exit %d\n%s", code, errOut)
	}
}
