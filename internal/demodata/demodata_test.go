package demodata

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"strings"
	"testing"
)

// TestSessions: the embedded sessions are the five phases of the demo,
// each line a hook payload whose paths are under @PROJECT@.
func TestSessions(t *testing.T) {
	files, err := fs.Glob(Sessions, "sessions/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 5 {
		t.Fatalf("%d session files, want 5: %v", len(files), files)
	}
	for _, name := range files {
		f, err := Sessions.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		n := 0
		for sc.Scan() {
			n++
			var ev struct {
				Session string `json:"session_id"`
				Name    string `json:"hook_event_name"`
				Cwd     string `json:"cwd"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || ev.Session == "" || ev.Name == "" {
				t.Fatalf("%s:%d: not a hook payload (%v): %.200s", name, n, err, sc.Bytes())
			}
			if ev.Cwd != "" && !strings.HasPrefix(ev.Cwd, "@PROJECT@") {
				t.Errorf("%s:%d: cwd %q is not under @PROJECT@", name, n, ev.Cwd)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil || n == 0 {
			t.Errorf("%s: %d lines, %v", name, n, err)
		}
	}
}
