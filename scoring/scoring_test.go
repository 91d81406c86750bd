package scoring

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
)

func defaults(t *testing.T) *config.Config {
	t.Helper()
	cfg, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The offline pipeline and the daemon's Score give one execution the
// same result, and its claims are checked with it.
func TestFilesScoresAsTheDaemon(t *testing.T) {
	s := New(defaults(t))
	rep, err := s.Files([]string{"../testdata/sessions/garbage.jsonl"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Skipped) != 7 {
		t.Errorf("skipped %d lines, want 7: %+v", len(rep.Skipped), rep.Skipped)
	}
	if rep.RubricVersion != fitness.RubricVersion {
		t.Errorf("rubric %q, want %q", rep.RubricVersion, fitness.RubricVersion)
	}
	rep, err = s.Files([]string{"-"}, strings.NewReader(readFile(t, "../testdata/sessions/hook_raw.jsonl")), nil)
	if err != nil || len(rep.Executions) == 0 {
		t.Fatalf("%v, %d executions", err, len(rep.Executions))
	}
	x := &execution.Execution{ID: "x", Skill: "deploy", Complete: true, HasOutput: true, Output: "All tests pass.",
		StartedAt: time.Unix(0, 0), EndedAt: time.Unix(10, 0)}
	got := s.Score(x)
	if want := fitness.Score(x, fitness.Limits{MaxTime: 2 * time.Minute, MaxTools: 15}); got.Result.Score != want.Score {
		t.Errorf("score %v, want %v (the built-in limits of a medium skill)", got.Result.Score, want.Score)
	}
	if got.Integrity == nil {
		t.Error("claims not checked")
	}
}

// A reload changes the limits at once and keeps the weights: they are
// the rubric version of the daemon's scores.
func TestReloadKeepsTheRubric(t *testing.T) {
	cfg := defaults(t)
	s := New(cfg)
	next, err := config.Parse("test.yaml", []byte("max_expected:\n  medium:\n    time: 1s\n    tools: 1\nscoring:\n  outcome_weight: 0.9\n"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	x := &execution.Execution{ID: "x", Skill: "deploy", Complete: true, StartedAt: time.Unix(0, 0), EndedAt: time.Unix(100, 0),
		Calls: []execution.ToolCall{{Name: "Bash"}, {Name: "Bash"}, {Name: "Bash"}}}
	before := s.Result(x)
	s.Reload(next)
	after := s.Result(x)
	if s.Rubric() != fitness.RubricVersion || after.RubricVersion != before.RubricVersion {
		t.Errorf("rubric %q → %q (%q), want it kept", before.RubricVersion, after.RubricVersion, s.Rubric())
	}
	if Rubric(next) == fitness.RubricVersion {
		t.Errorf("another weight, the same rubric %q", Rubric(next))
	}
	if after.Score >= before.Score {
		t.Errorf("tighter limits scored %v, before %v", after.Score, before.Score)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
