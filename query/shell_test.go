package query

import (
	"testing"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// A skill's own shell lines (PreSkillShellCommand) are listed apart from
// its tool calls, through the store.
func TestExplainShellLines(t *testing.T) {
	db := openDB(t)
	s := scored(ex{id: "s00000000000", skill: "status", project: shop, version: "aaaaaaaaaaaa", score: 80})
	s.Exec.ShellLines = []execution.ShellLine{
		{ID: "k:preamble-0", Tool: "Bash", Command: "git branch", InvokedBy: "claude", At: t0},
		{ID: "k:preamble-1", Tool: "Bash", Command: "git status", InvokedBy: "claude"},
	}
	if err := db.Commit(&store.Batch{Executions: []record.Scored{s}}); err != nil {
		t.Fatal(err)
	}
	e, err := ExplainExecution(db, "s000")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Calls) != 2 || len(e.ShellLines) != 2 {
		t.Fatalf("calls %+v shell lines %+v", e.Calls, e.ShellLines)
	}
	l := e.ShellLines[1]
	if l.Index != 1 || l.Command != "git status" || l.InvokedBy != "claude" || l.Tool != "Bash" || l.At != nil || e.ShellLines[0].At == nil {
		t.Errorf("shell lines %+v", e.ShellLines)
	}
}
