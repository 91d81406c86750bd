package mutation

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// sessionRig: a project with a CLAUDE.md and a user's Claude Code
// directory with its own CLAUDE.md, and _session executions carrying the
// manifest the hook would list.
type sessionRig struct {
	*engineRig
	user, projFile, userFile string
}

func newSessionRig(t *testing.T, o EngineOptions) *sessionRig {
	t.Helper()
	base := t.TempDir()
	user := filepath.Join(base, "claude")
	o.ClaudeDir = user
	r := &sessionRig{user: user, userFile: filepath.Join(user, "CLAUDE.md")}
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	r.engineRig = newEngineRig(t, o)
	r.projFile = filepath.Join(r.proj, "CLAUDE.md")
	return r
}

func (r *sessionRig) put(path, body string) {
	r.t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// manifest is what the hook lists for the files as they are now.
func (r *sessionRig) manifest() []execution.InstructionFile {
	r.t.Helper()
	var out []execution.InstructionFile
	for _, p := range []string{r.userFile, r.projFile} { // sorted: base/claude < base/proj
		b, err := os.ReadFile(p)
		if err != nil {
			r.t.Fatal(err)
		}
		out = append(out, execution.InstructionFile{Path: p, Hash: promptfile.Hash(b)})
	}
	return out
}

// session commits one _session execution with the current manifest.
func (r *sessionRig) session(score float64) string {
	r.t.Helper()
	r.n++
	r.now = r.now.Add(time.Minute)
	m := r.manifest()
	x := execution.Execution{ID: fmt.Sprintf("s%011d", r.n), SessionID: fmt.Sprintf("sess%d", r.n), Skill: execution.SessionSkill, Kind: "session",
		Project: r.proj, SkillVersion: event.ManifestVersion(m), Instructions: m, StartedAt: r.now, EndedAt: r.now.Add(time.Second),
		Complete: true, Calls: []execution.ToolCall{{Name: "Bash", Done: true}}}
	b := store.Batch{Executions: []record.Scored{{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: score, Grade: fitness.GradeOf(score)}}}}
	if err := r.db.Commit(&b); err != nil {
		r.t.Fatal(err)
	}
	r.e.Observe(b.Executions)
	return x.SkillVersion
}

func (r *sessionRig) sessionSkill() *record.Skill {
	r.t.Helper()
	sk, err := r.db.Skill(r.proj + "#" + execution.SessionSkill)
	if err != nil || sk == nil {
		r.t.Fatalf("no _session skill: %v", err)
	}
	return sk
}

// TestFirstSessionExecutionHasItsVersion (issue 13 item 4): the first
// _session execution of a project the engine has never seen is filed
// under its manifest, not "unknown", and the project's CLAUDE.md, which
// the engine finds when it starts watching the project, makes no
// competing version.
func TestFirstSessionExecutionHasItsVersion(t *testing.T) {
	r := newSessionRig(t, EngineOptions{})
	r.put(r.userFile, "# User\nBe kind.\n")
	r.put(r.projFile, "# Project\nBe brief.\n")
	v := r.session(80)
	xs, err := r.db.Executions(record.Filter{SkillKey: r.proj + "#_session"})
	if err != nil || len(xs) != 1 || xs[0].Version != v {
		t.Fatalf("executions %+v (%v), want one of version %s", xs, err, v)
	}
	if len(xs[0].Exec.Instructions) != 0 {
		t.Errorf("the stored execution keeps its manifest (%d files): the version holds it", len(xs[0].Exec.Instructions))
	}
	// The watcher's view of CLAUDE.md arrives too (edit it while watched).
	r.put(r.projFile, "# Project\nBe brief!\n")
	time.Sleep(200 * time.Millisecond)
	sk := r.sessionSkill()
	if len(sk.Versions) != 1 || sk.Versions[0].Hash != v || sk.Versions[0].Source != record.SourceManifest || sk.Current != v {
		t.Fatalf("versions %+v, current %s: want only the manifest %s", sk.Versions, sk.Current, v)
	}
	want := r.userFile + "  " + promptfile.Hash([]byte("# User\nBe kind.\n")) + "\n" + r.projFile + "  " + promptfile.Hash([]byte("# Project\nBe brief.\n")) + "\n"
	if got := string(sk.Versions[0].Content); got != want {
		t.Errorf("content %q, want %q", got, want)
	}
	// The edited CLAUDE.md's content is kept for rollbacks.
	if b, ok, err := r.db.InstructionFile(r.projFile, promptfile.Hash([]byte("# Project\nBe brief!\n"))); err != nil || !ok || string(b) != "# Project\nBe brief!\n" {
		t.Errorf("kept content %q %v %v", b, ok, err)
	}
}

// TestUserInstructionEditIsANewSessionVersion (issue 13 item 12): an edit
// to the user's CLAUDE.md, which no project file shows, makes a new
// _session version whose manifest differs from the last in that file's
// line only, so a diff names it.
func TestUserInstructionEditIsANewSessionVersion(t *testing.T) {
	r := newSessionRig(t, EngineOptions{})
	r.put(r.userFile, "# User\nBe kind.\n")
	r.put(r.projFile, "# Project\n")
	v1 := r.session(80)
	r.put(r.userFile, "# User\nBe kind and terse.\n")
	v2 := r.session(80)
	if v1 == v2 {
		t.Fatal("the user's edit did not change the version")
	}
	sk := r.sessionSkill()
	if len(sk.Versions) != 2 || sk.Current != v2 {
		t.Fatalf("versions %+v current %s", sk.Versions, sk.Current)
	}
	var c1, c2 string
	for _, v := range sk.Versions {
		switch v.Hash {
		case v1:
			c1 = string(v.Content)
		case v2:
			c2 = string(v.Content)
			if v.Parent != v1 || v.Seq != 2 {
				t.Errorf("v2: parent %s seq %d", v.Parent, v.Seq)
			}
		}
	}
	var changed []string
	a, b := strings.Split(c1, "\n"), strings.Split(c2, "\n")
	for i := range a {
		if a[i] != b[i] {
			changed = append(changed, strings.Fields(b[i])[0])
		}
	}
	if len(changed) != 1 || changed[0] != r.userFile {
		t.Errorf("lines that differ name %q, want only %s", changed, r.userFile)
	}
}

// TestSessionRollbackLeavesUserFiles: a _session version graded F is
// rolled back file by file: the project's CLAUDE.md gets its old content
// back, the user's CLAUDE.md (changed too) is left alone and named in the
// record.
func TestSessionRollbackLeavesUserFiles(t *testing.T) {
	o := EngineOptions{Decide: decide.Options{Method: decide.MethodSepa, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2},
		AutoRollback: true, RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 1, GradeMin: 3, RollbackEdits: RollbackEditsAuto}
	r := newSessionRig(t, o)
	good := "# Project\nRun the tests first.\n"
	r.put(r.userFile, "# User\nBe kind.\n")
	r.put(r.projFile, good)
	var v1, v2 string
	for i := 0; i < 5; i++ {
		v1 = r.session(85)
	}
	r.put(r.userFile, "# User\nBe kind and terse.\n")
	r.put(r.projFile, "# Project\nSkip the tests.\n")
	v2 = r.session(20)
	for i := 0; i < 5; i++ {
		r.session(20)
	}
	if b, _ := os.ReadFile(r.projFile); string(b) != good {
		t.Fatalf("CLAUDE.md not rolled back:\n%s\ndecisions: %+v", b, r.records())
	}
	if b, _ := os.ReadFile(r.userFile); string(b) != "# User\nBe kind and terse.\n" {
		t.Errorf("the user's CLAUDE.md was written: %q", b)
	}
	var rec *Record
	for _, x := range r.records() {
		if x.Applied && x.From == v2 {
			rec = &x
		}
	}
	// The next session runs on the restored project file and the user's
	// edit: a third version.
	if sk := r.sessionSkill(); len(sk.Versions) != 3 || sk.Current == v1 || sk.Current == v2 {
		t.Errorf("after the rollback: versions %d, current %s", len(sk.Versions), sk.Current)
	}
	if rec == nil || rec.To != v1 || !strings.Contains(rec.Words, "restored "+r.projFile) || !strings.Contains(rec.Words, "left alone: "+r.userFile) {
		t.Fatalf("record %+v\nall: %+v", rec, r.records())
	}
}

// TestManualSessionRollback: a person asks (sepad rollback _session v1):
// the version in force is found from the files (no CLAUDE.md hash), and
// the user's CLAUDE.md is restored too, since a person asked.
func TestManualSessionRollback(t *testing.T) {
	r := newSessionRig(t, EngineOptions{})
	r.put(r.userFile, "# User\nBe kind.\n")
	r.put(r.projFile, "# Project\nTests first.\n")
	v1 := r.session(80)
	r.put(r.userFile, "# User\nBe terse.\n")
	r.put(r.projFile, "# Project\nNo tests.\n")
	v2 := r.session(80)
	rec, err := r.e.ManualRollback(r.proj+"#_session", "v1")
	if err != nil {
		t.Fatalf("%v: %+v", err, rec)
	}
	if !rec.Applied || rec.From != v2 || rec.To != v1 {
		t.Fatalf("record %+v", rec)
	}
	for p, want := range map[string]string{r.userFile: "# User\nBe kind.\n", r.projFile: "# Project\nTests first.\n"} {
		if b, _ := os.ReadFile(p); string(b) != want {
			t.Errorf("%s: %q, want %q", p, b, want)
		}
	}
	// Now the files hold v1: asking again has nothing to do.
	if _, err := r.e.ManualRollback(r.proj+"#_session", "v1"); err == nil {
		t.Errorf("a second rollback to the version in force was not refused")
	}
}

// TestSessionRollbackAsks: with mutation.rollback_edits: ask (the
// default), a _session version graded F is not rewritten: the record
// says what would be restored.
func TestSessionRollbackAsks(t *testing.T) {
	o := EngineOptions{Decide: decide.Options{Method: decide.MethodSepa, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2},
		AutoRollback: true, RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 1, GradeMin: 3}
	r := newSessionRig(t, o)
	r.put(r.userFile, "# User\n")
	r.put(r.projFile, "# Project\nTests first.\n")
	for i := 0; i < 5; i++ {
		r.session(85)
	}
	r.put(r.projFile, "# Project\nNo tests.\n")
	for i := 0; i < 5; i++ {
		r.session(20)
	}
	if b, _ := os.ReadFile(r.projFile); string(b) != "# Project\nNo tests.\n" {
		t.Fatalf("a person's CLAUDE.md was rewritten under rollback_edits: ask: %q", b)
	}
	recs := r.records()
	if len(recs) == 0 || recs[len(recs)-1].Kind != KindWouldRollBack || !strings.Contains(recs[len(recs)-1].Words, r.projFile) {
		t.Fatalf("records %+v", recs)
	}
}

// TestPinSession: `sepad pin _session` pins the manifest in force (found
// from the files it lists), and pinning the older manifest restores its
// files first, user-level ones included (a person asked).
func TestPinSession(t *testing.T) {
	r := newSessionRig(t, EngineOptions{})
	r.put(r.userFile, "# User\n")
	r.put(r.projFile, "# Project\nv1\n")
	v1 := r.session(80)
	r.put(r.projFile, "# Project\nv2\n")
	v2 := r.session(80)
	key := r.proj + "#_session"
	rec, err := r.e.Pin(key, "")
	if err != nil || rec.To != v2 {
		t.Fatalf("pin: %+v %v, want v2 %s", rec, err, v2)
	}
	if _, err := r.e.Unpin(key); err != nil {
		t.Fatal(err)
	}
	if rec, err = r.e.Pin(key, "v1"); err != nil || rec.To != v1 {
		t.Fatalf("pin v1: %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(r.projFile); string(b) != "# Project\nv1\n" {
		t.Errorf("pinning v1 did not restore CLAUDE.md: %q", b)
	}
}

// TestWatcherKeepsInstructionFiles: the watcher keeps the content of a
// project's CLAUDE.local.md and .claude/CLAUDE.md as they change (for
// rollbacks of _session), and makes no version of them.
func TestWatcherKeepsInstructionFiles(t *testing.T) {
	r := newSessionRig(t, EngineOptions{})
	local := filepath.Join(r.proj, "CLAUDE.local.md")
	dot := filepath.Join(r.proj, ".claude", "CLAUDE.md")
	os.MkdirAll(filepath.Dir(dot), 0o755)
	r.put(local, "# Local\nstaging\n")
	r.put(dot, "# Dot\n")
	for _, f := range []struct{ path, body string }{{local, "# Local\nstaging\n"}, {dot, "# Dot\n"}} {
		var ok bool
		for i := 0; i < 200 && !ok; i++ {
			_, ok, _ = r.db.InstructionFile(f.path, promptfile.Hash([]byte(f.body)))
			time.Sleep(10 * time.Millisecond)
		}
		if !ok {
			t.Errorf("%s: content never kept", f.path)
		}
	}
	if sk, _ := r.db.Skill(r.proj + "#_session"); sk != nil {
		t.Errorf("the watcher made _session versions: %+v", sk.Versions)
	}
}
