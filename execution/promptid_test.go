package execution

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
)

// Each execution keeps Claude Code's prompt_id of the user prompt it
// started in (the real CLI's recorded spools, 2.1.197 and later, send it
// on every event but SessionStart): the prompt.id of Claude Code's own
// telemetry, which the OpenTelemetry export carries.
func TestPromptIDFromRecordedSpools(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "claude-code", "*", "*", "events.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded spools: %v", err)
	}
	checked := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		// The user prompts of each session, in order (2.1.197 sends a
		// typed skill's expansion before its submit): an execution
		// started at or after a prompt and before the next is that
		// prompt's.
		type prompt struct {
			at time.Time
			id string
		}
		prompts := map[string][]prompt{}
		g := NewGrouper(Options{})
		var xs []Execution
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			ev, err := event.ParseLine(sc.Bytes())
			if err != nil {
				continue
			}
			if (ev.HookEvent == event.UserPromptSubmit || ev.HookEvent == event.UserPromptExpansion) && ev.AgentID == "" && ev.PromptID != "" {
				ps := prompts[ev.SessionID]
				if len(ps) == 0 || ps[len(ps)-1].id != ev.PromptID {
					prompts[ev.SessionID] = append(ps, prompt{ev.Time, ev.PromptID})
				}
			}
			xs = append(xs, g.Add(&ev)...)
		}
		fh.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		xs = append(xs, g.Flush()...)
		for _, x := range xs {
			ps := prompts[x.SessionID]
			if x.AgentID != "" || len(ps) == 0 || x.StartedAt.Before(ps[0].at) {
				continue // a subagent's, or one before any prompt (resume)
			}
			i := sort.Search(len(ps), func(i int) bool { return ps[i].at.After(x.StartedAt) }) - 1
			if x.PromptID != ps[i].id {
				t.Errorf("%s: execution %s (%s, started %s): prompt_id %q, want %q", f, x.ID, x.Skill, x.StartedAt.Format(time.RFC3339Nano), x.PromptID, ps[i].id)
			}
			checked++
		}
	}
	if checked < len(files) {
		t.Fatalf("only %d executions checked in %d spools", checked, len(files))
	}
}
