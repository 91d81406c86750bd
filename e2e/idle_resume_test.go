package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/spool"
)

// turnLines is one turn of session sid, in the enriched format: a prompt,
// n Bash calls (the last one failing) and a Stop, at times from t0.
func turnLines(sid, prompt string, n int, t0 time.Time) [][]byte {
	var out [][]byte
	at := t0
	add := func(m map[string]any) {
		m["session_id"] = sid
		m["cwd"] = "/nonexistent/proj"
		m["sepa"] = map[string]any{"v": 1, "ts": at.UTC().Format(time.RFC3339Nano), "project": "/nonexistent/proj"}
		b, _ := json.Marshal(m)
		out = append(out, b)
		at = at.Add(time.Second)
	}
	add(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": prompt})
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("toolu_%s_%d", prompt, i)
		in := map[string]any{"command": fmt.Sprintf("step %d", i)}
		add(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": in})
		if i == n-1 {
			add(map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": id, "tool_input": in, "error": "Exit code 1"})
		} else {
			add(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": in, "tool_response": map[string]any{"stdout": "ok"}})
		}
	}
	add(map[string]any{"hook_event_name": "Stop", "last_assistant_message": "## Done\n\n- " + prompt})
	return out
}

// A session that goes on after the idle timeout closed it keeps the same
// session_id and numbers its parts from 1 again: its executions must still
// get new IDs and all be stored (issue 14 item 4; 65% were lost).
func TestSessionContinuesAfterIdleTimeout(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	cfg := filepath.Join(home, "config.yaml")
	writeFile(t, cfg, "collector:\n  idle_timeout: 1s\n")
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	var all [][]byte
	for s := 0; s < 5; s++ {
		all = append(all, turnLines(fmt.Sprintf("sess-%d", s), "first", 3, t0.Add(time.Duration(s)*time.Minute))...)
	}
	writeSpool(t, home, all)
	startDaemon(t, home, "--config", cfg)
	waitExecutions(t, home, 5) // each session's turn closes at the idle timeout
	// The same sessions go on, hours later by their own clocks.
	f, err := os.OpenFile(spool.Path(home), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	var more [][]byte
	for s := 0; s < 5; s++ {
		more = append(more, turnLines(fmt.Sprintf("sess-%d", s), "second", 2, t0.Add(3*time.Hour+time.Duration(s)*time.Minute))...)
	}
	for _, l := range more {
		f.Write(append(l, '\n'))
	}
	f.Close()
	got := waitExecutions(t, home, 10)
	ids := map[string]bool{}
	for _, x := range got {
		if ids[x.ID] {
			t.Fatalf("execution ID %s twice", x.ID)
		}
		ids[x.ID] = true
	}
	// sepad score over the same lines finds the same executions.
	out, errOut, code := sepad(t, []string{"SEPA_CONFIG=" + cfg}, nil, "score", "--json", spool.Path(home))
	if code != 0 {
		t.Fatalf("score: %d %s", code, errOut)
	}
	var doc struct {
		Executions []struct {
			ID string `json:"id"`
		} `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Executions) != 10 {
		t.Fatalf("sepad score finds %d executions, want 10", len(doc.Executions))
	}
	for _, x := range doc.Executions {
		if !ids[x.ID] {
			t.Errorf("execution %s of sepad score is not in the daemon's store\nscore: %s\ndaemon: %+v", x.ID, out, got)
		}
	}
	if st := status(t, home); st.Quarantined != 0 {
		t.Errorf("%d lines or executions quarantined", st.Quarantined)
	}
}

type idRow struct {
	ID string `json:"id"`
}

// waitExecutions polls the daemon until it has stored n executions.
func waitExecutions(t *testing.T, home string, n int) []idRow {
	t.Helper()
	var doc struct {
		Executions []idRow `json:"executions"`
	}
	deadline := time.Now().Add(90 * time.Second) // generous: CI machines are loaded
	for time.Now().Before(deadline) {
		out, _, code := sepad(t, queryEnv(home), nil, "executions", "--json", "--limit", "1000", "--home", home)
		if code == 0 && json.Unmarshal([]byte(out), &doc) == nil && len(doc.Executions) >= n {
			return doc.Executions
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the daemon stored %d executions, want %d", len(doc.Executions), n)
	return nil
}

// rawTurnLines is one turn of session sid as a raw hook payload writes it
// (post-execution.sh without sepad, Claude Code before 2.1.196): no sepa
// object, no time, no prompt_id.
func rawTurnLines(sid, prompt string, n int) [][]byte {
	var out [][]byte
	add := func(m map[string]any) {
		m["session_id"] = sid
		m["cwd"] = "/nonexistent/proj"
		m["transcript_path"] = "/nonexistent/" + sid + ".jsonl"
		b, _ := json.Marshal(m)
		out = append(out, b)
	}
	add(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": prompt})
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("toolu_%s_%d", prompt, i)
		in := map[string]any{"command": fmt.Sprintf("step %d", i)}
		add(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": in})
		add(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": in, "tool_response": map[string]any{"stdout": "ok"}})
	}
	add(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false})
	return out
}

// Lines without the hook's enrichment (no sepa.ts, no prompt_id) across an
// idle gap: one session, 3 turns, a pause longer than idle_timeout, 3
// more turns and SessionEnd. sepad score finds 6 executions; the daemon
// must store the same 6, not 3 (issue 33 item 10: the second three took
// the first three's IDs and were dropped as replays, silently).
func TestRawLinesAcrossIdleGap(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	cfg := filepath.Join(home, "config.yaml")
	writeFile(t, cfg, "collector:\n  idle_timeout: 1s\n")
	var first [][]byte
	for _, p := range []string{"one", "two", "three"} {
		first = append(first, rawTurnLines("raw-1", p, 2)...)
	}
	writeSpool(t, home, first)
	d := startDaemon(t, home, "--config", cfg)
	waitExecutions(t, home, 3) // the third closes at the idle timeout
	// A restart between the two halves: what numbers the parts must
	// survive it too.
	d.stop(t)
	startDaemon(t, home, "--config", cfg)
	var more [][]byte
	for _, p := range []string{"four", "five", "six"} {
		more = append(more, rawTurnLines("raw-1", p, 1)...)
	}
	end, _ := json.Marshal(map[string]any{"session_id": "raw-1", "cwd": "/nonexistent/proj", "hook_event_name": "SessionEnd", "reason": "other"})
	more = append(more, end)
	if err := appendLocked(home, bytes.Join(append(more, nil), []byte("\n"))); err != nil {
		t.Fatal(err)
	}
	// sepad score over the same lines.
	out, errOut, code := sepad(t, []string{"SEPA_CONFIG=" + cfg}, nil, "score", "--json", spool.Path(home))
	if code != 0 {
		t.Fatalf("score: %d %s", code, errOut)
	}
	var doc struct {
		Executions []struct {
			ID     string `json:"id"`
			Prompt string `json:"prompt"`
		} `json:"executions"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Executions) != 6 {
		t.Fatalf("sepad score finds %d executions, want 6:\n%s", len(doc.Executions), out)
	}
	// The daemon: wait until it has read everything and closed the session.
	var st statusDoc
	deadline := time.Now().Add(90 * time.Second)
	for {
		st = status(t, home)
		if st.LagEvents == 0 && st.OpenExecutions == 0 && st.Executions >= 3 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	got := waitExecutions(t, home, 0)
	ids := map[string]bool{}
	for _, x := range got {
		if ids[x.ID] {
			t.Fatalf("execution ID %s twice", x.ID)
		}
		ids[x.ID] = true
	}
	if len(got) != 6 || st.Quarantined != 0 {
		t.Fatalf("sepad score finds 6 executions, the daemon stored %d and quarantined %d (%+v)", len(got), st.Quarantined, st)
	}
	for _, x := range doc.Executions {
		if !ids[x.ID] {
			t.Errorf("execution %s (%q) of sepad score is not in the daemon's store", x.ID, x.Prompt)
		}
	}
}
