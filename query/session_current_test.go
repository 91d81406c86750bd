package query

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// TestSessionVersionInForce: the _session version in force is the
// manifest of the instruction files as they are now (the user's
// CLAUDE.md included), not the hash of the project's CLAUDE.md.
func TestSessionVersionInForce(t *testing.T) {
	base := t.TempDir()
	proj, cfg := filepath.Join(base, "proj"), filepath.Join(base, "cfg")
	t.Setenv("CLAUDE_CONFIG_DIR", cfg)
	for p, body := range map[string]string{filepath.Join(proj, "CLAUDE.md"): "# P\n", filepath.Join(cfg, "CLAUDE.md"): "# U\n"} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v, hf := prompt.ScanInstructions(proj, cfg)
	files := make([]execution.InstructionFile, len(hf))
	for i, f := range hf {
		files[i] = execution.InstructionFile{Path: f.Path, Hash: f.Hash}
	}
	db := openDB(t)
	x := execution.Execution{ID: "s1", SessionID: "s", Skill: "_session", Kind: "session", Project: proj, SkillVersion: v,
		Instructions: files, StartedAt: t0, EndedAt: t0.Add(1e9), Complete: true, Calls: []execution.ToolCall{{Name: "Bash", Done: true}}}
	if err := db.Commit(&store.Batch{Executions: []record.Scored{{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: 80, Grade: fitness.B}}}}); err != nil {
		t.Fatal(err)
	}
	current := func() string {
		sk, err := db.Skill(proj + "#_session")
		if err != nil || sk == nil {
			t.Fatal(err)
		}
		for _, r := range versionRows(sk) {
			if r.Current {
				return r.Hash
			}
		}
		return ""
	}
	if got := current(); got != v {
		t.Fatalf("current %q, want the manifest %s", got, v)
	}
	// The user's CLAUDE.md changes: the recorded version is no longer in
	// force, though the project's CLAUDE.md did not change.
	if err := os.WriteFile(filepath.Join(cfg, "CLAUDE.md"), []byte("# U2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := current(); got != "" {
		t.Errorf("after the user's edit, %q is still current", got)
	}
}

// TestSessionDiffNamesTheFile: `sepad diff _session v1 v2` after an edit
// of the user's CLAUDE.md shows one changed line, naming that file.
func TestSessionDiffNamesTheFile(t *testing.T) {
	proj := "/home/ana/src/shop"
	user := "/home/ana/.claude/CLAUDE.md"
	db := openDB(t)
	for i, uh := range []string{"aaaaaaaaaaaa", "cccccccccccc"} {
		files := []execution.InstructionFile{{Path: user, Hash: uh}, {Path: proj + "/CLAUDE.md", Hash: "bbbbbbbbbbbb"}}
		at := t0.Add(time.Duration(i) * time.Hour)
		x := execution.Execution{ID: fmt.Sprintf("s%d", i), SessionID: fmt.Sprintf("s%d", i), Skill: "_session", Kind: "session", Project: proj,
			SkillVersion: event.ManifestVersion(files), Instructions: files, StartedAt: at, EndedAt: at.Add(time.Second), Complete: true,
			Calls: []execution.ToolCall{{Name: "Bash", Done: true}}}
		if err := db.Commit(&store.Batch{Executions: []record.Scored{{Exec: x, Result: fitness.Result{RubricVersion: fitness.RubricVersion}}}}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := GetDiff(db, proj+"#_session", "v1", "v2")
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			if l.Op != " " {
				changed = append(changed, l.Op+l.Text)
			}
		}
	}
	want := []string{"-" + user + "  aaaaaaaaaaaa", "+" + user + "  cccccccccccc"}
	if !slices.Equal(changed, want) {
		t.Errorf("changed lines %q, want %q", changed, want)
	}
	v, err := GetVersion(db, proj+"#_session", "v2")
	if err != nil || v.Source != record.SourceManifest || !strings.Contains(v.Content, proj+"/CLAUDE.md  bbbbbbbbbbbb\n") {
		t.Errorf("show v2: %+v %v", v, err)
	}
}
