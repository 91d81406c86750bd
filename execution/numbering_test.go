package execution

import (
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
)

// rawTurn is one turn of session s as raw payloads (no sepa.ts, no
// prompt_id): what post-execution.sh writes without sepad.
func rawTurn(t *testing.T, s, prompt string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, l := range []string{
		`{"session_id":"SID","hook_event_name":"UserPromptSubmit","prompt":"PROMPT"}`,
		`{"session_id":"SID","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_PROMPT","tool_input":{"command":"ls"}}`,
		`{"session_id":"SID","hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"toolu_PROMPT","tool_input":{"command":"ls"},"tool_response":{"stdout":"ok"}}`,
		`{"session_id":"SID","hook_event_name":"Stop","stop_hook_active":false}`,
	} {
		line := strings.NewReplacer("SID", s, "PROMPT", prompt).Replace(l)
		ev, err := event.ParseLine([]byte(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out = append(out, ev)
	}
	return out
}

// TestNumberingOutlivesTheThread: raw payloads (no time, no prompt_id) of
// one session, 3 turns, the idle timeout, a restart (a new grouper
// restored from what the first saved), 3 more turns and SessionEnd, then
// the session resumed: every execution has its own ID, the same a single
// reading of the whole input gives (issue 33 item 10).
func TestNumberingOutlivesTheThread(t *testing.T) {
	var first, second, resumed []event.Event
	for _, p := range []string{"one", "two", "three"} {
		first = append(first, rawTurn(t, "s1", p)...)
	}
	for _, p := range []string{"four", "five", "six"} {
		second = append(second, rawTurn(t, "s1", p)...)
	}
	end, _ := event.ParseLine([]byte(`{"session_id":"s1","hook_event_name":"SessionEnd","reason":"other"}`))
	second = append(second, end)
	resumed = append(rawTurn(t, "s1", "seven"), end)

	// One reading of everything, as sepad score does.
	whole := NewGrouper(Options{})
	var want []string
	for _, evs := range [][]event.Event{first, second, resumed} {
		for i := range evs {
			for _, x := range whole.Add(&evs[i]) {
				want = append(want, x.ID)
			}
		}
	}
	for _, x := range whole.Flush() {
		want = append(want, x.ID)
	}

	// The daemon: idle timeout after the first three, then a restart.
	t0 := time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	g := NewGrouper(Options{})
	var got []string
	add := func(g *Grouper, evs []event.Event, at time.Time) {
		for i := range evs {
			for _, x := range g.AddAt(&evs[i], at) {
				got = append(got, x.ID)
			}
		}
	}
	add(g, first, t0)
	for _, x := range g.CloseIdle(t0.Add(time.Hour), time.Minute) {
		got = append(got, x.ID)
	}
	put, _ := g.Dirty()
	saved := g.Ended()
	if len(put) != 0 || saved["s1"] != 3 {
		t.Fatalf("saved open %v, ended %v; want none open and s1 at 3", put, saved)
	}
	if again := g.Ended(); again != nil {
		t.Errorf("Ended gave %v again", again)
	}
	g2 := NewGrouper(Options{})
	if err := g2.Restore(put); err != nil {
		t.Fatal(err)
	}
	g2.RestoreEnded(saved)
	add(g2, second, t0.Add(2*time.Hour))
	add(g2, resumed, t0.Add(3*time.Hour))

	if len(got) != 7 || len(want) != 7 {
		t.Fatalf("daemon %d executions, one reading %d; want 7 and 7", len(got), len(want))
	}
	seen := map[string]bool{}
	for i := range got {
		if seen[got[i]] {
			t.Errorf("ID %s twice: %v", got[i], got)
		}
		seen[got[i]] = true
		if got[i] != want[i] {
			t.Errorf("execution %d: the daemon named it %s, one reading %s", i+1, got[i], want[i])
		}
	}

	// Lines the hook enriched are named by their times: nothing is kept.
	h := NewGrouper(Options{})
	evs := rawTurn(t, "s2", "timed")
	for i := range evs {
		evs[i].Time = t0.Add(time.Duration(i) * time.Second)
		h.Add(&evs[i])
	}
	h.Flush()
	if e := h.Ended(); len(e) != 0 {
		t.Errorf("a thread named by times kept its numbering: %v", e)
	}
}
