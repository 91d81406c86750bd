package hooks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/spool"
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
		if err := spool.AppendNotice(home, n.project, n.text, at, time.Second); err != nil {
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
	// A skill's shell line (2.1.332) is never answered: any answer, even
	// a message, keeps the line from running.
	if out := run("PreSkillShellCommand"); out != "" {
		t.Fatalf("PreSkillShellCommand printed %q", out)
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
	left, err := spool.PendingNotices(home)
	if err != nil || len(left) != 1 || left[0].Text != "not yours" || !left[0].Time.Equal(at) {
		t.Fatalf("pending after the session: %+v %v", left, err)
	}
	// Every event still reaches the spool.
	b, _ := os.ReadFile(spool.Path(home))
	if n := bytes.Count(b, []byte{'\n'}); n != 4 {
		t.Fatalf("%d spool lines, want 4", n)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// BenchmarkShowNotices is a SessionStart with three pending notices, one
// of them for its project: lock, read, rewrite, answer.
func BenchmarkShowNotices(b *testing.B) {
	home := b.TempDir()
	var out bytes.Buffer
	for b.Loop() {
		b.StopTimer()
		for _, p := range []string{"/p", "/q", "/r"} {
			if err := spool.AppendNotice(home, p, "sepad rolled back deploy v3 → v2: v3 scored 38.2 (F) over 6 runs; v2 held 81.0 (A). Undo: sepad rollback deploy --to v3", time.Unix(0, 0), time.Second); err != nil {
				b.Fatal(err)
			}
		}
		out.Reset()
		b.StartTimer()
		showNotices(&out, home, "/p")
		if out.Len() == 0 {
			b.Fatal("nothing shown")
		}
		b.StopTimer()
		os.Remove(spool.NoticesPath(home))
		b.StartTimer()
	}
}
