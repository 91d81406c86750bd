package mutation

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sepad/sepad/internal/treetest"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/watch"
)

func rigOptions() EngineOptions {
	return EngineOptions{Decide: decide.Options{Method: decide.MethodSepa, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2},
		AutoRollback: true, RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 0.5, Cooldown: 0, GradeMin: 3, RollbackEdits: RollbackEditsAuto}
}

// degrade records v1 as a good baseline and v2 as a worse version that the
// engine rejects and wants to roll back; it returns both bodies.
func degrade(r *engineRig) (v1body, v2body string) {
	v1body = "---\nname: deploy\n---\n# Deploy\n\nRun the checks, then deploy.\n"
	v1 := r.write(v1body)
	for i := 0; i < 5; i++ {
		r.run(v1, 90)
	}
	v2body = "---\nname: deploy\n---\n# Deploy\n\nSkip the checks.\n"
	v2 := r.write(v2body)
	for i := 0; i < 8; i++ {
		r.run(v2, 20)
	}
	return v1body, v2body
}

// TestEventsDoNotWidenWrites: a project seen only in events is watched
// (its versions are recorded) but never written: the rollback is
// recorded as a conflict saying why. Once the project is installed, the
// same rollback writes.
func TestEventsDoNotWidenWrites(t *testing.T) {
	var mu sync.Mutex
	var installed []string
	o := rigOptions()
	o.ExtraRoots = []string{} // not configured
	o.InstalledRoots = func() []string { mu.Lock(); defer mu.Unlock(); return installed }
	r := newEngineRig(t, o)
	r.e.addRoot(r.proj, false) // as Observe does for a project seen in an event
	_, v2body := degrade(r)
	if b, _ := os.ReadFile(r.skill); string(b) != v2body {
		t.Fatalf("a project seen only in events was written: %q", b)
	}
	recs := r.records()
	last := recs[len(recs)-1]
	if last.Kind != KindConflict || last.Applied || !strings.Contains(last.Words, "outside the roots sepad may write") || !strings.Contains(last.Words, "run `sepad trust "+r.proj+"`") {
		t.Fatalf("last record %+v", last)
	}

	// A rollback by hand there is refused naming `sepad trust`, as
	// evolve's is (a walk found "read …SKILL.md: path is outside the
	// roots sepad may write" and nothing else, through /sepad:rollback).
	_, err := r.e.ManualRollback(r.skill, "v1")
	if !errors.Is(err, promptfile.ErrOutsideRoots) || !strings.Contains(err.Error(), "run `sepad trust "+r.proj+"`") {
		t.Errorf("manual rollback outside the roots: %v", err)
	}

	// The same story in a project `sepad install` recorded.
	r2 := newEngineRig(t, o)
	mu.Lock()
	installed = []string{r2.proj}
	mu.Unlock()
	r2.e.addRoot(r2.proj, false)
	v1body, _ := degrade(r2)
	if b, _ := os.ReadFile(r2.skill); string(b) != v1body {
		t.Fatalf("an installed project was not rolled back: %q; %+v", b, r2.records())
	}
}

// TestWriteRootsNeverSlashOrHome: "/" and the user's home are never write
// roots, however they are configured; the user's ~/.claude is one.
func TestWriteRootsNeverSlashOrHome(t *testing.T) {
	dir := t.TempDir()
	home, proj := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(home, ".claude"), 0o700)
	os.MkdirAll(proj, 0o700)
	os.Symlink("/", filepath.Join(dir, "slash"))
	os.Symlink(home, filepath.Join(dir, "homelink"))
	e := NewEngine(nil, EngineOptions{UserHome: home, ExtraRoots: []string{"/", home, home + "/", proj, "relative"},
		InstalledRoots: func() []string { return []string{filepath.Join(dir, "slash"), filepath.Join(dir, "homelink"), proj} }})
	got := e.WriteRoots()
	want := []string{filepath.Join(home, ".claude"), proj}
	if !slices.Equal(got, want) {
		t.Fatalf("WriteRoots = %v, want %v", got, want)
	}
	// A CLAUDE.md in the home directory (a "project" at $HOME, seen in an
	// event whose cwd was $HOME) is outside them.
	md := filepath.Join(home, "CLAUDE.md")
	os.WriteFile(md, []byte("mine"), 0o600)
	if err := promptfile.Rollback(md, promptfile.Hash([]byte("mine")), []byte("pwned"), got); !errors.Is(err, promptfile.ErrOutsideRoots) {
		t.Fatalf("rollback in $HOME: %v", err)
	}
	if b, _ := os.ReadFile(md); string(b) != "mine" {
		t.Fatal("written")
	}
	if e := NewEngine(nil, EngineOptions{UserHome: home, ClaudeDir: "/elsewhere/claude"}); !slices.Equal(e.WriteRoots(), []string{"/elsewhere/claude"}) {
		t.Fatalf("CLAUDE_CONFIG_DIR-style root: %v", e.WriteRoots())
	}
}

// TestReadThroughLinkOutsideRoot: a prompt file that is a link to a file
// outside its root is neither read nor hashed by the watcher, so no hash
// of another file reaches the store or the API.
func TestReadThroughLinkOutsideRoot(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "token")
	os.WriteFile(secret, []byte("hunter2"), 0o600)
	p := filepath.Join(root, ".claude", "skills", "leak", "SKILL.md")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.Symlink(secret, p)
	inside := treetest.Skill(t, root, "ok", "fine", 0o644)
	os.MkdirAll(filepath.Join(root, ".claude", "agents"), 0o755)
	os.Symlink(inside, filepath.Join(root, ".claude", "agents", "alias.md")) // a link inside the root is fine
	w := watch.New(0)
	changes, _ := w.AddRoot(root, prompt.RootProject)
	var paths []string
	for _, c := range changes {
		paths = append(paths, c.Path)
		if c.Hash == promptfile.Hash([]byte("hunter2")) {
			t.Fatalf("the outside file was hashed through %s", c.Path)
		}
	}
	if len(changes) != 2 || slices.Contains(paths, p) {
		t.Fatalf("changes %v", paths)
	}
	if _, err := promptfile.ReadInRoots(p, []string{root}); !errors.Is(err, promptfile.ErrOutsideRoots) {
		t.Fatalf("ReadInRoots: %v", err)
	}
}

// TestForeignProjectsNotWatched: a project seen in an imported log from
// another machine (a Windows path on Linux, or any path that is not
// absolute here) is never joined to the daemon's working directory: it is
// recorded as foreign, not watched, not written, even when the working
// directory happens to hold a directory of that name.
func TestForeignProjectsNotWatched(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("C:\\Users is a path on Windows")
	}
	r := newEngineRig(t, rigOptions())
	cwd := t.TempDir()
	t.Chdir(cwd)
	foreign := []string{`C:\Users\ana\shop`, "C:/Users/ana/shop", "shop"}
	for _, p := range foreign {
		skill := filepath.Join(cwd, filepath.FromSlash(p), ".claude", "skills", "trap", "SKILL.md")
		os.MkdirAll(filepath.Dir(skill), 0o755)
		os.WriteFile(skill, []byte("---\nname: trap\n---\nnot ours\n"), 0o644)
	}
	for i, p := range foreign {
		x := execution.Execution{ID: fmt.Sprintf("f%011d", i), SessionID: "s", Project: p, StartedAt: r.now, EndedAt: r.now, Complete: true}
		r.e.Observe([]record.Scored{{Exec: x}})
	}
	for _, root := range r.e.Roots() {
		if !filepath.IsAbs(root) || strings.HasPrefix(root, cwd) {
			t.Errorf("watched %q (cwd %s)", root, cwd)
		}
	}
	sks, _ := r.db.Skills()
	for _, s := range sks {
		if s.Name == "trap" {
			t.Errorf("a skill under a foreign project joined to the cwd was recorded: %s", s.Key)
		}
	}
	if got := r.e.Foreign(); len(got) != 3 {
		t.Errorf("foreign projects %q, want the three", got)
	}
	for _, w := range r.e.WriteRoots() {
		if strings.HasPrefix(w, cwd) {
			t.Errorf("write root %q", w)
		}
	}
}
