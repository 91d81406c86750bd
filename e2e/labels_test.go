package e2e

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

// versionsOf returns the skill's versions by number (sepad versions --json).
func versionsOf(t *testing.T, p *project) map[int]query.GradeRow {
	t.Helper()
	out, errOut, code := sepad(t, p.env(), nil, "versions", "deploy", "--home", p.home, "--json")
	if code != 0 {
		return nil // not recorded yet
	}
	var doc query.SkillVersions
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("versions --json: %v\n%s%s", err, out, errOut)
	}
	m := map[int]query.GradeRow{}
	for _, v := range doc.Versions {
		m[v.Version] = v
	}
	return m
}

func scoredRuns(t *testing.T, p *project, version, n int) func() bool {
	return func() bool { return versionsOf(t, p)[version].N >= n }
}

// releaseAnswer is one answer shape, the version number aside: the
// generic signals score both the same.
func releaseAnswer(ver string) string {
	return "## Deployed\n\nRelease v" + ver + " is live because all checks passed.\n\n- built\n- pushed\n\n```sh\nmake deploy\n```\n\nNext steps: watch the dashboards."
}

// TestChecksRejectVersion: a skill with its own checks (a regex on the
// answer, a file the run must leave in the project). v2 breaks the
// expected output (another release number, no file) while every generic
// signal stays where it was: the checks signal alone makes v2 worse, and
// it is rejected and rolled back.
func TestChecksRejectVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a daemon through two versions of a skill")
	}
	p := newProject(t)
	p.config(`skills:
  deploy:
    checks:
      - type: regex
        name: release number
        pattern: 'v1\.4\.2\b'
      - type: file_exists
        path: dist/release.txt
max_expected:
  medium:
    time: 1000h
`)
	v1 := "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\nRun the checks, then make deploy.\n"
	p.writeSkill("Run the checks, then make deploy.")
	writeFile(t, filepath.Join(p.dir, "dist", "release.txt"), "v1.4.2\n")
	d := startDaemonEnv(t, p)
	p.turns(5, 0, releaseAnswer("1.4.2"))
	p.release()
	waitFor(t, "v1's five runs scored", scoredRuns(t, p, 1, 5))

	// v2 forgets the file and reports another number.
	if err := os.Remove(filepath.Join(p.dir, "dist", "release.txt")); err != nil {
		t.Fatal(err)
	}
	p.writeSkill("Deploy quickly; skip the release file.")
	time.Sleep(600 * time.Millisecond) // the watcher's debounce
	p.turns(5, 0, releaseAnswer("1.3.9"))
	p.release()
	waitFor(t, "v2 rejected and v1 restored", fileIs(p.skill, v1))
	d.stop(t)

	var rej *mutation.Record
	for _, r := range decisions(t, p.home) {
		if r.Kind == mutation.KindDecision && r.Decision != nil && r.Decision.Outcome == decide.Reject {
			rej = &r
		}
	}
	if rej == nil {
		t.Fatalf("no rejection: %+v", decisions(t, p.home))
	}
	t.Logf("rejection: %s", rej.Words)
	sawChecks := false
	for _, s := range rej.Decision.Signals {
		switch s.Signal {
		case fitness.SignalChecks:
			sawChecks = true
			if s.Baseline != 1 || s.Candidate != 0 || s.BaselineRuns != 5 || s.CandidateRuns != 5 {
				t.Errorf("checks signal %+v: want 1 on v1's 5 runs, 0 on v2's", s)
			}
		default:
			if math.Abs(s.Delta) > 0.001 {
				t.Errorf("generic signal %s moved: %+v", s.Signal, s)
			}
		}
	}
	if !sawChecks {
		t.Errorf("the decision does not show the checks signal: %+v", rej.Decision.Signals)
	}
	if !strings.Contains(rej.Words, "checks 0.00 (5 runs) vs 1.00 (5 runs)") {
		t.Errorf("words %q do not name the checks", rej.Words)
	}
	// explain shows the checks row of a v2 run and why each check failed.
	out, errOut, code := sepad(t, p.env(), nil, "executions", "--skill", "deploy", "--limit", "1", "--home", p.home, "--json")
	var ex query.Executions
	if code != 0 || json.Unmarshal([]byte(out), &ex) != nil || len(ex.Executions) != 1 {
		t.Fatalf("executions: %d %s %s", code, out, errOut)
	}
	out, errOut, code = sepad(t, p.env(), nil, "explain", ex.Executions[0].ID, "--home", p.home)
	if code != 0 {
		t.Fatalf("explain: %s", errOut)
	}
	contains(t, out, "0/2 checks passed: release number failed (no match for v1\\.4\\.2\\b); file_exists failed (dist/release.txt does not exist)")
	contains(t, out, "(rubric "+fitness.RubricVersion+")")
}

// TestLabelTurnsPendingDecision: a candidate that scores like the
// baseline is pending (the sequential test sees no difference). Labels of
// failure, given through the daemon, lower its runs' scores (the label
// signal, here with weight 0.5: a rubric of its own) until the engine's
// method rejects it and rolls the file back, with no new run (the ratio
// safety rule is off so that the method decides).
func TestLabelTurnsPendingDecision(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a daemon through two versions of a skill")
	}
	p := newProject(t)
	writeFile(t, filepath.Join(p.home, "config.yaml"), `mutation:
  method: sequential
  min_samples: 5
  debounce: 100ms
  cooldown_executions: 0
  rollback_edits: auto
  rollback_ratio: 0
max_expected:
  medium:
    time: 1000h
scoring:
  label_weight: 0.5
`)
	v1 := "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\nRun the checks, then make deploy.\n"
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	const runs = 8
	for i := 0; i < runs; i++ {
		p.turn(0, goodAnswer)
	}
	p.release()
	waitFor(t, "v1 scored", scoredRuns(t, p, 1, runs))
	p.writeSkill("Deploy, then run the checks.")
	time.Sleep(600 * time.Millisecond)
	for i := 0; i < runs; i++ {
		p.turn(0, goodAnswer)
	}
	p.release()
	waitFor(t, "v2 scored", scoredRuns(t, p, 2, runs))
	vs := versionsOf(t, p)
	if vs[2].Status != mutation.StatusCandidate || vs[1].Status != mutation.StatusBaseline {
		t.Fatalf("before the labels: v1 %q, v2 %q; want baseline and a pending candidate", vs[1].Status, vs[2].Status)
	}
	out, _, _ := sepad(t, p.env(), nil, "executions", "--skill", "deploy", "--version", "v2", "--home", p.home, "--json")
	var ex query.Executions
	if err := json.Unmarshal([]byte(out), &ex); err != nil || len(ex.Executions) != runs {
		t.Fatalf("v2's executions: %v\n%s", err, out)
	}
	turned := 0
	for i, x := range ex.Executions {
		out, errOut, code := sepad(t, p.env(), nil, "label", x.ID, "failure", "--rater", "e2e", "--note", fmt.Sprint("run ", i), "--home", p.home, "--json")
		if code != 0 {
			t.Fatalf("label: %d %s", code, errOut)
		}
		var a query.LabelAnswer
		if err := json.Unmarshal([]byte(out), &a); err != nil {
			t.Fatal(err)
		}
		if !a.Rescored || a.Score == nil || a.ScoreBefore == nil || *a.Score >= *a.ScoreBefore || a.Label.EvaluationLabel != "rejected" {
			t.Fatalf("label %d: %s", i, out)
		}
		if a.Status == mutation.StatusRejected {
			turned = i + 1
			t.Logf("turned by label %d: %s", turned, a.Words)
			break
		}
	}
	if turned == 0 {
		t.Fatalf("%d labelled failures did not turn the decision: %+v", runs, versionsOf(t, p))
	}
	waitFor(t, "v1 restored", fileIs(p.skill, v1))
	d.stop(t)
	recs := decisions(t, p.home)
	last := recs[len(recs)-1]
	if last.Kind != mutation.KindDecision || last.Decision == nil || last.Decision.Outcome != decide.Reject || !strings.Contains(last.Words, "label 0.00") {
		t.Fatalf("last decision %+v", last)
	}
	// The daemon's rubric records the label weight; the views read it.
	out, _, _ = sepad(t, p.env(), nil, "versions", "deploy", "--home", p.home, "--json")
	contains(t, out, `"rubric_version": "`+fitness.RubricVersion+`+label=0.5,checks=0.25,outcome=0.5"`)
}
