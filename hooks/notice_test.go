package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSessionStartShowsNoticesOnce: the hook answers a SessionStart with
// the pending notices of its project (and those for any project) as one
// systemMessage, removes them, and prints nothing for any other event or
// a second SessionStart.
func TestSessionStartShowsNoticesOnce(t *testing.T) {
	home := t.TempDir()
	proj := t.TempDir()
	other := t.TempDir()
	for _, d := range []string{proj, other} {
		if err := os.Mkdir(filepath.Join(d, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	mine := "sepad rolled back deploy v3 → v2: v3 scored 38.20 (F) over 6 runs; v2 held 81.00 (A).\tUndo: \"sepad rollback deploy --to v3\""
	for _, n := range []struct{ project, text string }{{filepath.ToSlash(proj), mine}, {filepath.ToSlash(other), "not yours"}, {"", "for every project"}} {
		if err := AppendNotice(home, n.project, n.text, at, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	run := func(event string) string {
		payload := `{"session_id":"s1","cwd":` + strconvQuote(proj) + `,"hook_event_name":"` + event + `","source":"startup"}`
		var out, errb bytes.Buffer
		MainOut([]string{"--home", home}, strings.NewReader(payload), &out, &errb)
		if errb.Len() > 0 {
			t.Errorf("%s: stderr %q", event, errb.String())
		}
		return out.String()
	}
	if out := run("UserPromptSubmit"); out != "" {
		t.Fatalf("UserPromptSubmit printed %q", out)
	}
	out := run("SessionStart")
	var answer map[string]any
	if err := json.Unmarshal([]byte(out), &answer); err != nil || len(answer) != 1 {
		t.Fatalf("SessionStart answer %q: %v", out, err)
	}
	if got, want := answer["systemMessage"], mine+"\nfor every project"; got != want {
		t.Fatalf("systemMessage %q, want %q", got, want)
	}
	if out := run("SessionStart"); out != "" {
		t.Fatalf("a notice shown twice: %q", out)
	}
	left, err := PendingNotices(home)
	if err != nil || len(left) != 1 || left[0].Text != "not yours" || !left[0].Time.Equal(at) {
		t.Fatalf("pending after the session: %+v %v", left, err)
	}
	// Every event still reaches the spool.
	b, _ := os.ReadFile(SpoolPath(home))
	if n := bytes.Count(b, []byte{'\n'}); n != 3 {
		t.Fatalf("%d spool lines, want 3", n)
	}
}

func TestSessionStartProject(t *testing.T) {
	for _, c := range []struct {
		line, project string
		ok            bool
	}{
		{`{"hook_event_name":"SessionStart","tool_input":{"hook_event_name":"x"},"sepa":{"v":1,"project":"/a/b"}}`, "/a/b", true},
		{`{"session_id":"s","hook_event_name":"PreToolUse","sepa":{"project":"/a"}}`, "", false},
		{`{"tool_input":{"hook_event_name":"SessionStart"},"hook_event_name":"Stop","sepa":{"project":"/a"}}`, "", false},
		{`{"hook_event_name":"SessionStart","sepa":{"v":1}}`, "", true},
		{`not json`, "", false},
	} {
		p, ok := sessionStartProject([]byte(c.line))
		if ok != c.ok || string(p) != c.project {
			t.Errorf("%s: %q %v, want %q %v", c.line, p, ok, c.project, c.ok)
		}
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// BenchmarkSessionStartProject is what every event pays for the notices:
// reading the event name of the enriched line (a PostToolUse here).
func BenchmarkSessionStartProject(b *testing.B) {
	line := []byte(`{"session_id":"s1","transcript_path":"/home/u/.claude/projects/x/s1.jsonl","cwd":"/home/u/src/shop","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"make test"},"tool_response":{"stdout":"` + strings.Repeat("ok ", 600) + `","stderr":""},"tool_use_id":"toolu_1","sepa":{"v":1,"ts":"2026-05-01T12:00:00Z","project":"/home/u/src/shop"}}`)
	for b.Loop() {
		if _, ok := sessionStartProject(line); ok {
			b.Fatal("not a SessionStart")
		}
	}
}

// BenchmarkShowNotices is a SessionStart with three pending notices, one
// of them for its project: lock, read, rewrite, answer.
func BenchmarkShowNotices(b *testing.B) {
	home := b.TempDir()
	var out bytes.Buffer
	for b.Loop() {
		b.StopTimer()
		for _, p := range []string{"/p", "/q", "/r"} {
			if err := AppendNotice(home, p, "sepad rolled back deploy v3 → v2: v3 scored 38.2 (F) over 6 runs; v2 held 81.0 (A). Undo: sepad rollback deploy --to v3", time.Unix(0, 0), time.Second); err != nil {
				b.Fatal(err)
			}
		}
		out.Reset()
		b.StartTimer()
		showNotices(&out, home, []byte("/p"))
		if out.Len() == 0 {
			b.Fatal("nothing shown")
		}
		b.StopTimer()
		os.Remove(NoticesPath(home))
		b.StartTimer()
	}
}

// TestNoticesReadersNeverSeeAPart: readers take no lock, so every read
// while notices are appended must hold whole lines, as many as were
// appended before it or after (never fewer than the read before it).
func TestNoticesReadersNeverSeeAPart(t *testing.T) {
	home := t.TempDir()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			if err := AppendNotice(home, "/p", strings.Repeat("x", 300), time.Unix(int64(i), 0), time.Second); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	last := 0
	for reading := true; reading; {
		select {
		case <-done:
			reading = false
		default:
		}
		ns, err := PendingNotices(home)
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) < last && len(ns) < maxNotices-1 {
			t.Fatalf("read %d notices after %d", len(ns), last)
		}
		for _, n := range ns {
			if len(n.Text) != 300 {
				t.Fatalf("a notice cut to %d bytes", len(n.Text))
			}
		}
		last = len(ns)
	}
}
