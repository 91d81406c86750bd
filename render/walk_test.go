package render

import (
	"strings"
	"testing"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/reward"
	"github.com/sepad/sepad/scoring"
	"github.com/sepad/sepad/store"
)

// TestCountsAreEnglish: one of a thing is singular in history's header
// and explain's error line, as a new user's walk found them (issue 36
// item 8: "1 versions", "1 tool failures").
func TestCountsAreEnglish(t *testing.T) {
	var b strings.Builder
	History(&b, &query.History{Skill: query.SkillRef{Name: "deploy"}, Versions: make([]query.GradeRow, 1), Total: 1, Stored: 1})
	if !strings.Contains(b.String(), "1 execution, newest 0 shown; 1 version\n") {
		t.Errorf("history header:\n%s", b.String())
	}
	b.Reset()
	// A version with no tokens read yet ends its line with its grade,
	// not with an empty "-".
	History(&b, &query.History{Skill: query.SkillRef{Name: "deploy"}, Total: 1, Stored: 1,
		Versions:   []query.GradeRow{{Version: 1, Hash: "aaaaaaaaaaaa", Status: "baseline", N: 1, Grade: "A"}},
		Executions: []query.ExecRow{{Version: 1, Hash: "aaaaaaaaaaaa"}}})
	if strings.Contains(b.String(), ", -\n") || !strings.Contains(b.String(), "baseline, n 1, aggregate") {
		t.Errorf("history's version line:\n%s", b.String())
	}
	b.Reset()
	Forgotten(&b, &store.Forgotten{Key: "/src/shop#_session", Executions: 1, Versions: 1, Decisions: 0})
	if !strings.HasPrefix(b.String(), "forgot /src/shop#CLAUDE.md: 1 execution, 1 version, 0 decisions;") {
		t.Errorf("forget of CLAUDE.md: %q", b.String())
	}
	b.Reset()
	// The rest of the walk's sweep: one of a thing, or none.
	one := 1
	if got := Status(&query.GradeRow{Status: "candidate", NeededMore: &one}); got != "candidate, needs ~1 run" {
		t.Errorf("status: %q", got)
	}
	Quarantine(&b, &query.Quarantine{})
	if b.String() != "no line quarantined: every spool line was read\n" {
		t.Errorf("an empty quarantine: %q", b.String())
	}
	b.Reset()
	Quarantine(&b, &query.Quarantine{Total: 1, Kept: 1, Lines: make([]query.QuarantineLine, 1)})
	if !strings.HasPrefix(b.String(), "1 line quarantined, 1 kept, newest 1 shown\n") {
		t.Errorf("one quarantined line: %q", b.String())
	}
	b.Reset()
	Explain(&b, &query.Explain{Score: query.ScoreView{Scored: true, Errors: fitness.ErrorCounts{Total: 1, ToolFailures: 1}}})
	if !strings.Contains(b.String(), "errors: 1 (1 tool failure, 0 retries, 0 output patterns, 0 soft failures, 0 corrections)") {
		t.Errorf("explain's error line:\n%s", b.String())
	}
}

// TestLabelInWords: a label's training-data blockers and an unnamed
// grader are said in words with the flag that helps, not as the field
// names --json keeps (issue 36 item 6).
func TestLabelInWords(t *testing.T) {
	l := query.ViewOf(reward.Label{Outcome: reward.Success, Score: 1})
	var b strings.Builder
	Derived(&b, &l)
	out := b.String()
	for _, want := range []string{"no rater or model named", "no rubric version: label with --rubric-version", "no rater: label with --rater NAME or --model ID"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"rubric_version", "unknown", "gold"} {
		if strings.Contains(out, bad) {
			t.Errorf("says %q:\n%s", bad, out)
		}
	}
}

// TestExplainSignalNames: explain's signal rows read "higher is better" by
// name too: error_rate's value is one minus the error rate, so its row is
// "error-free", not "error_rate 0.900" (issue 36 items 1 and 6).
func TestExplainSignalNames(t *testing.T) {
	var b strings.Builder
	Explain(&b, &query.Explain{Score: query.ScoreView{Scored: true, Signals: []fitness.Signal{
		{Signal: fitness.SignalErrorRate, Present: true, SubScore: 0.9, Detail: "1 error"},
		{Signal: fitness.SignalToolSuccess, Present: true, SubScore: 1},
	}}})
	out := b.String()
	if !strings.Contains(out, "  error-free         0.900") || !strings.Contains(out, "  tool success rate  1.000") || strings.Contains(out, "_rate") {
		t.Errorf("explain's signal rows:\n%s", out)
	}
}

// TestScoreTableNamesCLAUDEmd: `sepad score FILE` names the session's base
// prompt CLAUDE.md, not _session (issue 36 item 9).
func TestScoreTableNamesCLAUDEmd(t *testing.T) {
	score := 81.82
	var b strings.Builder
	ScoreTable(&b, &scoring.Report{Executions: []scoring.Execution{{ID: "5824cec2cdb8", Skill: "_session", Project: "/p/proj", Complete: true, Scored: true, Score: &score, Grade: "A"}}}, true)
	if out := b.String(); strings.Contains(out, "_session") || !strings.Contains(out, "5824cec2cdb8  CLAUDE.md") || !strings.Contains(out, "\n5824cec2cdb8 CLAUDE.md: 81.82 A") {
		t.Errorf("score table:\n%s", out)
	}
}

// TestActivationNamesTheProject: two skills of one name in two projects
// each say which one their activation line is about; a name used once is
// left as it is (a new user's walk with two projects, issue 36).
func TestActivationNamesTheProject(t *testing.T) {
	rows := []query.GradeRow{
		{Skill: "deploy", Project: "/w/proj", Activation: &query.ActivationRow{Since: 1, Words: "4 times"}},
		{Skill: "deploy", Project: "/w/proj2", Activation: &query.ActivationRow{Since: 1, Words: "twice"}},
		{Skill: "review", Project: "/w/proj", Activation: &query.ActivationRow{Since: 2, Words: "once"}},
	}
	var b strings.Builder
	Activation(&b, rows, false, map[string]string{"/w/proj": "proj", "/w/proj2": "proj2"})
	want := "\ndeploy (proj) activation, description of v1: 4 times\ndeploy (proj2) activation, description of v1: twice\nreview activation, description of v2: once\n"
	if b.String() != want {
		t.Errorf("got:\n%q\nwant:\n%q", b.String(), want)
	}
}
