package hooks

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/spool"
)

// copyOf is one hook call of a double-install test: which payload, from
// which side, at what time after t0.
type copyOf struct {
	payload string
	plugin  bool
	at      time.Duration
}

func TestDoubleInstallDedup(t *testing.T) {
	const (
		a = `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1"}`
		b = `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"t1","tool_response":{"stdout":"x"}}`
	)
	big := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"t2","tool_response":{"content":"` + strings.Repeat("y", 60000) + `"}}`
	for _, tc := range []struct {
		name  string
		calls []copyOf
		lines int
		dups  int
	}{
		{"settings then plugin", []copyOf{{a, false, 0}, {a, true, time.Millisecond}}, 1, 1},
		{"plugin then settings", []copyOf{{a, true, 0}, {a, false, time.Millisecond}}, 1, 1},
		{"settings only, twice", []copyOf{{a, false, 0}, {a, false, time.Millisecond}}, 2, 0},
		{"plugin only, twice", []copyOf{{a, true, 0}, {a, true, time.Millisecond}}, 2, 0},
		{"copies too far apart", []copyOf{{a, false, 0}, {a, true, 11 * time.Second}}, 2, 0},
		{"interleaved events", []copyOf{{a, false, 0}, {b, true, 1}, {b, false, 2}, {a, true, 3}}, 2, 2},
		{"an event repeated, copies crossed", []copyOf{{a, false, 0}, {a, true, 1}, {a, true, 2}, {a, false, 3}}, 2, 2},
		{"different events", []copyOf{{a, false, 0}, {b, true, 1}}, 2, 0},
		{"a large event between", []copyOf{{a, false, 0}, {big, false, 1}, {big, true, 2}, {a, true, 3}}, 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			dups := 0
			for _, c := range tc.calls {
				at := t0.Add(c.at)
				res, err := Handle([]byte(c.payload), Options{Home: home, NoFiles: true, Plugin: c.plugin, Now: func() time.Time { return at }})
				if err != nil {
					t.Fatal(err)
				}
				if res.Duplicate {
					dups++
				}
			}
			got, err := os.ReadFile(spool.Path(home))
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(got, []byte("\n")); n != tc.lines || dups != tc.dups {
				t.Fatalf("%d lines, %d duplicates dropped; want %d and %d:\n%s", n, dups, tc.lines, tc.dups, got)
			}
			for _, l := range bytes.Split(bytes.TrimSpace(got), []byte("\n")) {
				decode(t, l) // every line still parses
			}
		})
	}
}

func TestPluginLineMarked(t *testing.T) {
	home := t.TempDir()
	if _, err := Handle([]byte(`{"session_id":"s","hook_event_name":"Stop"}`), Options{Home: home, NoFiles: true, Plugin: true, Now: func() time.Time { return t0 }}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(spool.Path(home))
	if !bytes.Contains(got, []byte(`,"via":"plugin"}`)) {
		t.Fatalf("the plugin's line has no sepa.via: %s", got)
	}
	if _, err := os.Lstat(PluginMarkPath(home)); err != nil {
		t.Fatal("the plugin's copy left no mark for the settings copy")
	}
}

func TestEvalRunRecordsNothing(t *testing.T) {
	home := t.TempDir()
	t.Setenv("CLAUDE_CODE_EVAL_CONFINED", "1")
	var out, errOut bytes.Buffer
	MainOut([]string{"--home", home}, strings.NewReader(`{"session_id":"s","hook_event_name":"SessionStart"}`), &out, &errOut)
	if _, err := os.Stat(spool.Path(home)); !os.IsNotExist(err) {
		t.Fatalf("an eval run wrote the spool (%v)", err)
	}
	if out.Len()+errOut.Len() != 0 {
		t.Fatalf("printed %q %q", out.String(), errOut.String())
	}
}
