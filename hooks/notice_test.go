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
	left, err := PendingNotices(home)
	if err != nil || len(left) != 1 || left[0].Text != "not yours" || !left[0].Time.Equal(at) {
		t.Fatalf("pending after the session: %+v %v", left, err)
	}
	// Every event still reaches the spool.
	b, _ := os.ReadFile(SpoolPath(home))
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
			if err := AppendNotice(home, p, "sepad rolled back deploy v3 → v2: v3 scored 38.2 (F) over 6 runs; v2 held 81.0 (A). Undo: sepad rollback deploy --to v3", time.Unix(0, 0), time.Second); err != nil {
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
		os.Remove(NoticesPath(home))
		b.StartTimer()
	}
}

// TestNoticesReadersNeverSeeAPart: readers take no lock, so every read
// while notices are appended must hold whole lines, as many as were
// appended before it or after (never fewer than the read before it).
func TestNoticesReadersNeverSeeAPart(t *testing.T) {
	t.Parallel() // seconds of appends and reads, beside the process tests
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

// TestNoticesOldFormat: a notice written before the file held JSON lines
// (time, project and text separated by tabs) is still read and shown.
func TestNoticesOldFormat(t *testing.T) {
	home := t.TempDir()
	old := "1777636800000000000\t/p\tsepad rolled back \\\"deploy\\\"\\tv3\n"
	if err := os.WriteFile(NoticesPath(home), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := AppendNotice(home, "/q", "new", time.Unix(1, 0), time.Second); err != nil {
		t.Fatal(err)
	}
	ns, err := PendingNotices(home)
	if err != nil || len(ns) != 2 || ns[0].Project != "/p" || ns[0].Text != "sepad rolled back \"deploy\"\tv3" || ns[0].Time.Unix() != 1777636800 || ns[1].Text != "new" {
		t.Fatalf("notices %+v %v", ns, err)
	}
	var out bytes.Buffer
	showNotices(&out, home, "/p")
	if want := `{"systemMessage":"sepad rolled back \"deploy\"\tv3"}` + "\n"; out.String() != want {
		t.Fatalf("answer %q, want %q", out.String(), want)
	}
}
