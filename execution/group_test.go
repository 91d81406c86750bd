package execution

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
)

var update = flag.Bool("update", false, "rewrite golden files")

// groupFile parses and groups one fixture, skipping malformed lines.
func groupFile(t *testing.T, path string) []Execution {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := NewGrouper(Options{})
	var out []Execution
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		ev, err := event.ParseLine(sc.Bytes())
		if err != nil {
			continue
		}
		out = append(out, g.Add(&ev)...)
	}
	return append(out, g.Flush()...)
}

func TestGoldenSessions(t *testing.T) {
	files, _ := filepath.Glob("../testdata/sessions/*.jsonl")
	if len(files) < 5 {
		t.Fatalf("fixtures missing: %v", files)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		t.Run(name, func(t *testing.T) {
			got, _ := json.MarshalIndent(groupFile(t, f), "", "  ")
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				os.WriteFile(golden, append(got, '\n'), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
				t.Errorf("executions differ from %s; rerun with -update and review the diff", golden)
			}
		})
	}
}

// summary is what the named tests assert on.
type summary struct {
	skill, kind              string
	calls, failures, retries int
	output, complete         bool
	corrections              int
}

func summarize(xs []Execution) []summary {
	var s []summary
	for _, x := range xs {
		s = append(s, summary{x.Skill, x.Kind, len(x.Calls), x.Failures(), x.Retries(), x.HasOutput, x.Complete, x.Corrections})
	}
	return s
}

func TestRawSessionExecutions(t *testing.T) {
	got := summarize(groupFile(t, "../testdata/sessions/hook_raw.jsonl"))
	want := []summary{
		// turn 1: a failure, an Edit, then the same command passes: the
		// rerun verifies the fix, it is not a retry (docs/rubric.md).
		{"_session", "session", 4, 1, 0, true, true, 0},
		// turn 2: the model invokes deploy; the next prompt corrects it.
		{"deploy", "skill", 2, 0, 0, true, true, 1},
		// turn 3: /deploy typed by the user, interrupted: the turn never stopped.
		{"deploy", "skill", 1, 1, 0, false, false, 0},
		// the subagent's own execution, closed by SubagentStop.
		{"code-reviewer", "agent", 1, 0, 0, true, true, 0},
		// "continue": the parent's Agent call stays in the parent's execution.
		{"_session", "session", 2, 0, 0, true, true, 0},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d executions %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("execution %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestEnrichedAttribution(t *testing.T) {
	xs := groupFile(t, "../testdata/sessions/enriched.jsonl")
	var deploy, agent int
	for _, x := range xs {
		switch x.Skill {
		case "deploy":
			deploy++
			if x.SkillVersion != "3f2a9c1b7d4e" || !strings.HasSuffix(x.SkillPath, "skills/deploy/SKILL.md") {
				t.Errorf("deploy attribution = %q %q", x.SkillVersion, x.SkillPath)
			}
		case "code-reviewer":
			agent++
			if x.SkillVersion != "9d8c7b6a5f4e" {
				t.Errorf("agent version = %q", x.SkillVersion)
			}
		}
		if x.StartedAt.IsZero() || x.EndedAt.Before(x.StartedAt) {
			t.Errorf("%s: times %v..%v", x.ID, x.StartedAt, x.EndedAt)
		}
		if x.Project != "/home/ana/src/shop" {
			t.Errorf("project = %q", x.Project)
		}
	}
	if deploy != 2 || agent != 1 {
		t.Errorf("deploy=%d agent=%d", deploy, agent)
	}
	if d, ok := xs[0].Duration(); !ok || d != 27000 {
		t.Errorf("first execution duration = %d %v, want 27000ms from event times", d, ok)
	}
}

func TestOldClaudeCodeUnansweredPreIsFailure(t *testing.T) {
	xs := groupFile(t, "../testdata/sessions/old_claude_code.jsonl")
	if len(xs) != 1 || len(xs[0].Calls) != 2 || xs[0].Failures() != 1 || !xs[0].Calls[0].NoPost {
		t.Fatalf("got %+v", summarize(xs))
	}
}

func TestLegacyVersionsSplit(t *testing.T) {
	xs := groupFile(t, "../testdata/sessions/legacy.jsonl")
	if len(xs) != 2 {
		t.Fatalf("got %d executions", len(xs))
	}
	if xs[0].SkillVersion != "v3" || len(xs[0].Calls) != 10 || xs[0].Failures() != 1 {
		t.Errorf("v3: %+v", summarize(xs[:1]))
	}
	if xs[1].SkillVersion != "v4" || len(xs[1].Calls) != 2 || xs[1].Complete {
		t.Errorf("v4: %+v", summarize(xs[1:]))
	}
	if d, ok := xs[0].Duration(); !ok || d != 54000 {
		t.Errorf("v3 duration %d", d)
	}
}

func TestDuplicatePreIsDeduplicated(t *testing.T) {
	g := NewGrouper(Options{})
	in := json.RawMessage(`{"command":"ls"}`)
	evs := []event.Event{
		{SessionID: "s", HookEvent: event.PreToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: "t1"},
		{SessionID: "s", HookEvent: event.PreToolUse, ToolName: "Bash", ToolInput: in, ToolUseID: "t1"},
		{SessionID: "s", HookEvent: event.PostToolUseFailure, ToolName: "Bash", ToolInput: in, ToolUseID: "t1", Error: "Exit code 2"},
		{SessionID: "s", HookEvent: event.PostToolUseFailure, ToolName: "Bash", ToolInput: in, ToolUseID: "t1", Error: "Exit code 2"},
		{SessionID: "s", HookEvent: event.Stop, LastMessage: "failed"},
		{SessionID: "s", HookEvent: event.SessionEnd},
	}
	var xs []Execution
	for i := range evs {
		xs = append(xs, g.Add(&evs[i])...)
	}
	if len(xs) != 1 || len(xs[0].Calls) != 1 || xs[0].Failures() != 1 || xs[0].Calls[0].Error != "Exit code 2" {
		t.Fatalf("got %+v", xs)
	}
	if g.Open() != 0 {
		t.Errorf("open threads after SessionEnd: %d", g.Open())
	}
}

func TestSaveRestoreMidTurn(t *testing.T) {
	lines := readLines(t, "../testdata/sessions/hook_raw.jsonl")
	whole := groupAll(NewGrouper(Options{}), lines, -1)
	for cut := 1; cut < len(lines); cut += 3 {
		g := NewGrouper(Options{})
		first := groupAll(g, lines[:cut], 0)
		put, _ := g.Dirty()
		g2 := NewGrouper(Options{})
		if err := g2.Restore(put); err != nil {
			t.Fatal(err)
		}
		rest := groupAll(g2, lines[cut:], -1)
		a, _ := json.Marshal(whole)
		b, _ := json.Marshal(append(first, rest...))
		if !bytes.Equal(a, b) {
			t.Fatalf("cut at %d: restored grouping differs", cut)
		}
	}
}

func readLines(t *testing.T, path string) [][]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSpace(b), []byte("\n"))
}

func groupAll(g *Grouper, lines [][]byte, flush int) []Execution {
	var out []Execution
	for _, l := range lines {
		ev, err := event.ParseLine(l)
		if err != nil {
			continue
		}
		out = append(out, g.Add(&ev)...)
	}
	if flush < 0 {
		out = append(out, g.Flush()...)
	}
	return out
}

func TestIsCorrection(t *testing.T) {
	cases := map[string]bool{
		"No, that's the wrong branch": true,
		"no.":                         true,
		"That's not what I asked":     true,
		"revert that change":          true,
		"undo it":                     true,
		"It doesn't work":             true,
		"still failing":               true,
		"You forgot the tests":        true,
		"Now add a README":            false,
		"nobody uses this, remove it": false,
		"Notice the failing test":     false,
		"deploy to staging":           false,
		"Is there no way to do it?":   false,
		"stopwatch support please":    false,
	}
	for p, want := range cases {
		if got := IsCorrection(p); got != want {
			t.Errorf("IsCorrection(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestCloseIdle(t *testing.T) {
	g := NewGrouper(Options{})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	evs := []event.Event{
		{SessionID: "a", HookEvent: event.PostToolUse, ToolName: "Read", ToolUseID: "1"},
		{SessionID: "b", HookEvent: event.PostToolUse, ToolName: "Read", ToolUseID: "2"},
	}
	g.AddAt(&evs[0], t0)
	g.AddAt(&evs[1], t0.Add(20*time.Minute))
	if xs := g.CloseIdle(t0.Add(29*time.Minute), 30*time.Minute); len(xs) != 0 {
		t.Fatalf("closed too early: %+v", xs)
	}
	xs := g.CloseIdle(t0.Add(31*time.Minute), 30*time.Minute)
	if len(xs) != 1 || xs[0].SessionID != "a" || xs[0].Complete {
		t.Fatalf("got %+v", xs)
	}
	if g.Open() != 1 {
		t.Errorf("open = %d", g.Open())
	}
	// The event's own time stays zero: idle time is not execution time.
	if !xs[0].StartedAt.IsZero() {
		t.Errorf("StartedAt = %v", xs[0].StartedAt)
	}
}
