package watch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
)

func TestDebouncer(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type step struct {
		ms    int
		touch string // key to touch, or "" to pop
		due   string // keys due at a pop, comma-separated
	}
	cases := []struct {
		name  string
		steps []step
		next  int // ms of the next deadline after the steps; -1: none
	}{
		{"quiet_period", []step{{0, "a", ""}, {299, "", ""}, {300, "", "a"}}, -1},
		{"burst_restarts", []step{{0, "a", ""}, {200, "a", ""}, {400, "a", ""}, {650, "", ""}, {700, "", "a"}}, -1},
		{"keys_independent", []step{{0, "a", ""}, {100, "b", ""}, {300, "", "a"}}, 400},
		{"sorted", []step{{0, "b", ""}, {0, "a", ""}, {500, "", "a,b"}}, -1},
		// A file written without pause is still read after MaxDelay (3 s).
		{"max_delay", []step{{0, "a", ""}, {250, "a", ""}, {500, "a", ""}, {750, "a", ""}, {1000, "a", ""}, {1250, "a", ""}, {1500, "a", ""},
			{1750, "a", ""}, {2000, "a", ""}, {2250, "a", ""}, {2500, "a", ""}, {2750, "a", ""}, {2999, "", ""}, {3000, "", "a"}}, -1},
		{"out_of_order_time", []step{{100, "a", ""}, {50, "a", ""}, {399, "", ""}, {400, "", "a"}}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := NewDebouncer(300 * time.Millisecond)
			for i, s := range c.steps {
				if s.touch != "" {
					d.Touch(s.touch, at(s.ms))
					continue
				}
				if got := strings.Join(d.Pop(at(s.ms)), ","); got != s.due {
					t.Fatalf("step %d at %d ms: due %q, want %q", i, s.ms, got, s.due)
				}
			}
			next, ok := d.Next()
			if ok != (c.next >= 0) || ok && !next.Equal(at(c.next)) {
				t.Fatalf("next %v %v, want %d ms", next.Sub(t0), ok, c.next)
			}
		})
	}
}

// watchEnv is a user home and a project with prompt files, watched.
type watchEnv struct {
	t       *testing.T
	home    string
	project string
	w       *Watcher
}

const quiet = 60 * time.Millisecond

func newWatchEnv(t *testing.T) *watchEnv {
	base := t.TempDir()
	e := &watchEnv{t: t, home: filepath.Join(base, "home"), project: filepath.Join(base, "shop")}
	e.write(e.home, ".claude/agents/reviewer.md", "# Reviewer\n")
	e.write(e.home, "CLAUDE.md", "user notes, not a session\n")
	e.write(e.project, ".claude/skills/deploy/SKILL.md", "# Deploy v1\n")
	e.write(e.project, ".claude/commands/fmt.md", "# Fmt\n")
	e.write(e.project, "CLAUDE.md", "# Shop\n")
	e.write(e.project, "README.md", "not a prompt\n")
	e.w = New(quiet)
	if err := e.w.Open(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.w.Close() })
	return e
}

func (e *watchEnv) path(root, rel string) string { return filepath.Join(root, filepath.FromSlash(rel)) }

func (e *watchEnv) write(root, rel, content string) string {
	e.t.Helper()
	p := e.path(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// await collects changes until one matches want, failing after a generous
// 10 s (no timing is asserted: a slow machine only waits longer).
func (e *watchEnv) await(what string, want func(Change) bool) []Change {
	e.t.Helper()
	var seen []Change
	deadline := time.After(10 * time.Second)
	for {
		select {
		case c := <-e.w.Changes():
			seen = append(seen, c)
			if want(c) {
				return seen
			}
		case <-deadline:
			e.t.Fatalf("no change %s within 10 s; saw %s", what, describe(seen))
			return nil
		}
	}
}

// quietFor collects changes until none came for d (several quiet periods).
func (e *watchEnv) quietFor(d time.Duration) []Change {
	var seen []Change
	for {
		select {
		case c := <-e.w.Changes():
			seen = append(seen, c)
		case <-time.After(d):
			return seen
		}
	}
}

func describe(cs []Change) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s %s/%s removed=%v %q", c.Path, c.Kind, c.Name, c.Removed, c.Content))
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

func content(path, text string) func(Change) bool {
	return func(c Change) bool { return c.Path == path && !c.Removed && string(c.Content) == text }
}

func TestWatcherAddRootAndScan(t *testing.T) {
	e := newWatchEnv(t)
	user, err := e.w.AddRoot(e.home, prompt.RootUser)
	if err != nil {
		t.Fatal(err)
	}
	proj, err := e.w.AddRoot(e.project, prompt.RootProject)
	if err != nil {
		t.Fatal(err)
	}
	got := func(cs []Change) string {
		var s []string
		for _, c := range cs {
			rel, _ := filepath.Rel(filepath.Dir(e.home), c.Path)
			s = append(s, fmt.Sprintf("%s:%s:%s:%s", c.Kind, c.Name, filepath.ToSlash(rel), c.Hash))
		}
		return strings.Join(s, " ")
	}
	if want := "agent:reviewer:home/.claude/agents/reviewer.md:" + promptfile.Hash([]byte("# Reviewer\n")); got(user) != want {
		t.Errorf("user root: %s\nwant %s", got(user), want)
	}
	want := "command:fmt:shop/.claude/commands/fmt.md:" + promptfile.Hash([]byte("# Fmt\n")) +
		" skill:deploy:shop/.claude/skills/deploy/SKILL.md:" + promptfile.Hash([]byte("# Deploy v1\n")) +
		" session:_session:shop/CLAUDE.md:" + promptfile.Hash([]byte("# Shop\n"))
	if got(proj) != want {
		t.Errorf("project root: %s\nwant %s", got(proj), want)
	}
	for _, c := range proj {
		if c.Project != e.project || (c.Kind == prompt.KindSession) != (c.Key == e.project+"#_session") {
			t.Errorf("project fields: %+v", c.File)
		}
	}
	if user[0].Project != "" {
		t.Errorf("user file has project %q", user[0].Project)
	}
	if again, _ := e.w.AddRoot(e.project, prompt.RootProject); len(again) != 0 {
		t.Errorf("adding the root again reported %d files", len(again))
	}
	if all := e.w.Scan(); len(all) != 4 {
		t.Errorf("Scan: %s", describe(all))
	}
}

func TestWatcherEditorPatterns(t *testing.T) {
	t.Parallel() // its own directories; seconds of quiet periods, overlapped
	e := newWatchEnv(t)
	if _, err := e.w.AddRoot(e.project, prompt.RootProject); err != nil {
		t.Fatal(err)
	}
	skill := e.path(e.project, ".claude/skills/deploy/SKILL.md")

	t.Run("write_in_place_burst", func(t *testing.T) {
		f, err := os.OpenFile(skill, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []string{"# Deploy", " v2", "\n"} {
			f.WriteString(part)
		}
		f.Close()
		seen := e.await("after the burst", content(skill, "# Deploy v2\n"))
		seen = append(seen, e.quietFor(8*quiet)...)
		if len(seen) != 1 {
			t.Fatalf("a burst gave %d changes: %s", len(seen), describe(seen))
		}
		if seen[0].Hash != promptfile.Hash([]byte("# Deploy v2\n")) || seen[0].Kind != prompt.KindSkill || seen[0].Name != "deploy" {
			t.Fatalf("change %+v", seen[0])
		}
	})
	t.Run("rename_over", func(t *testing.T) {
		// vim and IDEs: write a temporary file, rename it over.
		tmp := filepath.Join(filepath.Dir(skill), ".SKILL.md.swp")
		os.WriteFile(tmp, []byte("# Deploy v3\n"), 0o644)
		if err := os.Rename(tmp, skill); err != nil {
			t.Fatal(err)
		}
		seen := e.await("after rename-over", content(skill, "# Deploy v3\n"))
		for _, c := range seen {
			if strings.Contains(c.Path, ".swp") {
				t.Fatalf("the temporary file was reported: %s", describe(seen))
			}
		}
	})
	t.Run("delete_then_create", func(t *testing.T) {
		os.Remove(skill)
		os.WriteFile(skill, []byte("# Deploy v4\n"), 0o644)
		e.await("after delete and create", content(skill, "# Deploy v4\n"))
	})
	t.Run("same_content_is_no_change", func(t *testing.T) {
		os.WriteFile(skill, []byte("# Deploy v4\n"), 0o644)
		os.Chtimes(skill, time.Now(), time.Now())
		if seen := e.quietFor(8 * quiet); len(seen) != 0 {
			t.Fatalf("rewriting the same content reported %s", describe(seen))
		}
	})
	t.Run("removed", func(t *testing.T) {
		os.Remove(skill)
		e.await("removal", func(c Change) bool { return c.Path == skill && c.Removed && c.Hash == "" })
	})
	t.Run("noise_ignored", func(t *testing.T) {
		e.write(e.project, "README.md", "still not a prompt\n")
		e.write(e.project, ".claude/commands/.#fmt.md", "emacs lock\n")
		e.write(e.project, ".claude/commands/fmt.md~", "backup\n")
		e.write(e.project, ".claude/skills/deploy/notes.md", "not SKILL.md\n")
		e.write(e.project, ".claude/settings.json", "{}\n")
		if seen := e.quietFor(8 * quiet); len(seen) != 0 {
			t.Fatalf("non-prompt files reported: %s", describe(seen))
		}
	})
}

func TestWatcherNewDirectories(t *testing.T) {
	t.Parallel() // its own directories; seconds of quiet periods, overlapped
	e := newWatchEnv(t)
	bare := filepath.Join(filepath.Dir(e.project), "bare")
	os.MkdirAll(bare, 0o755)
	if _, err := e.w.AddRoot(e.project, prompt.RootProject); err != nil {
		t.Fatal(err)
	}
	if _, err := e.w.AddRoot(bare, prompt.RootProject); err != nil {
		t.Fatal(err)
	}
	if _, err := e.w.AddRoot(e.home, prompt.RootUser); err != nil {
		t.Fatal(err)
	}
	t.Run("new_skill_folder", func(t *testing.T) {
		p := e.write(e.project, ".claude/skills/release/SKILL.md", "# Release\n")
		seen := e.await("for the new skill", content(p, "# Release\n"))
		if c := seen[len(seen)-1]; c.Name != "release" || c.Kind != prompt.KindSkill {
			t.Fatalf("%+v", c.File)
		}
	})
	t.Run("dot_claude_appears_in_a_project", func(t *testing.T) {
		p := e.write(bare, ".claude/agents/planner.md", "# Planner\n")
		e.await("for the first agent of a bare project", content(p, "# Planner\n"))
		c := e.write(bare, "CLAUDE.md", "# Bare\n")
		e.await("for the project's CLAUDE.md", content(c, "# Bare\n"))
	})
	t.Run("skills_appear_in_home", func(t *testing.T) {
		p := e.write(e.home, ".claude/skills/notes/SKILL.md", "# Notes\n")
		e.await("for a new user skill", content(p, "# Notes\n"))
	})
	t.Run("folder_deleted_and_recreated", func(t *testing.T) {
		// git checkout of another branch, or rm -r and copy back: the new
		// folder must be watched again.
		dir := e.path(e.project, ".claude/skills/deploy")
		p := filepath.Join(dir, "SKILL.md")
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		e.await("removal with the folder", func(c Change) bool { return c.Path == p && c.Removed })
		e.write(e.project, ".claude/skills/deploy/SKILL.md", "# Deploy again\n")
		e.await("in the recreated folder", content(p, "# Deploy again\n"))
		os.WriteFile(p, []byte("# Deploy edited in the new folder\n"), 0o644)
		e.await("for an edit in the recreated folder", content(p, "# Deploy edited in the new folder\n"))
	})
	t.Run("folder_moved_away", func(t *testing.T) {
		dir := e.path(e.project, ".claude/skills/release")
		if err := os.Rename(dir, filepath.Join(filepath.Dir(e.project), "release-archived")); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "SKILL.md")
		e.await("removal when the folder moves away", func(c Change) bool { return c.Path == p && c.Removed })
		// Edits in the moved folder are not ours any more.
		os.WriteFile(filepath.Join(filepath.Dir(e.project), "release-archived", "SKILL.md"), []byte("# elsewhere\n"), 0o644)
		if seen := e.quietFor(8 * quiet); len(seen) != 0 {
			t.Fatalf("a moved-away folder still reports: %s", describe(seen))
		}
	})
	if s := e.w.Stats(); s.Events == 0 || s.Changes == 0 || s.Watched == 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestWatcherLifecycle(t *testing.T) {
	root := t.TempDir()
	w := New(0)
	// Roots added before Open are watched from Open on.
	if cs, err := w.AddRoot(root, prompt.RootProject); err != nil || len(cs) != 0 {
		t.Fatalf("%v %v", cs, err)
	}
	if _, err := w.AddRoot(filepath.Join(root, "missing"), prompt.RootProject); err == nil {
		t.Fatal("a missing root was accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := w.Open(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.Open(ctx); err == nil {
		t.Fatal("opened twice")
	}
	p := filepath.Join(root, "CLAUDE.md")
	os.WriteFile(p, []byte("# P\n"), 0o644)
	select {
	case c := <-w.Changes():
		if c.Path != p || c.Kind != prompt.KindSession {
			t.Fatalf("%+v", c)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no change from a root added before Open")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := w.AddRoot(root, prompt.RootUser); !errors.Is(err, ErrClosed) {
		t.Fatalf("AddRoot after Close: %v", err)
	}
	// Closing without opening is fine too.
	if err := New(time.Second).Close(); err != nil {
		t.Fatal(err)
	}
}
