package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/internal/treetest"
	"github.com/sepad/sepad/prompt"
)

// TestInstructionsInTheLine: SessionStart carries the manifest, and
// InstructionsLoaded the hash of its file; both decode with event.ParseLine.
func TestInstructionsInTheLine(t *testing.T) {
	base := t.TempDir()
	treetest.Write(t, base, map[string]string{"home/proj/.git/HEAD": "ref", "home/proj/CLAUDE.md": "# P\n", "home/.claude/CLAUDE.md": "# U\n"})
	proj := filepath.Join(base, "home", "proj")
	opts := Options{UserHome: filepath.Join(base, "home")}
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	line := Enrich([]byte(`{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":`+quote(proj)+`}`), now, opts)
	ev, err := event.ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	in := ev.Sepa.Instructions
	if in == nil || len(in.Files) != 2 || in.Version != event.ManifestVersion(in.Files) {
		t.Fatalf("SessionStart: %s", line)
	}
	if in.Files[0].Path != filepath.Join(base, "home", ".claude", "CLAUDE.md") || in.Files[1].Path != filepath.Join(proj, "CLAUDE.md") {
		t.Errorf("files %+v", in.Files)
	}
	file := filepath.Join(proj, "CLAUDE.md")
	line = Enrich([]byte(`{"session_id":"s","hook_event_name":"InstructionsLoaded","cwd":`+quote(proj)+`,"file_path":`+quote(file)+`,"memory_type":"Project","load_reason":"session_start"}`), now, opts)
	ev, err = event.ParseLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if ev.FilePath != file || ev.LoadReason != "session_start" || ev.MemoryType != "Project" ||
		ev.Sepa.Instructions == nil || len(ev.Sepa.Instructions.Files) != 1 || ev.Sepa.Instructions.Files[0].Hash != in.Files[1].Hash ||
		ev.Sepa.Instructions.Version != "" {
		t.Errorf("InstructionsLoaded: %s", line)
	}
	// A subagent's SessionStart, a path that is no markdown file, and
	// NoFiles: no instructions.
	for _, p := range []string{
		`{"session_id":"s","hook_event_name":"SessionStart","agent_type":"x","cwd":` + quote(proj) + `}`,
		`{"session_id":"s","hook_event_name":"InstructionsLoaded","cwd":` + quote(proj) + `,"file_path":"/etc/passwd"}`,
		`{"session_id":"s","hook_event_name":"InstructionsLoaded","file_path":"CLAUDE.md"}`,
	} {
		if l := Enrich([]byte(p), now, opts); strings.Contains(string(l), `"instructions"`) {
			t.Errorf("%s: %s", p, l)
		}
	}
	o := opts
	o.NoFiles = true
	if l := Enrich([]byte(`{"session_id":"s","hook_event_name":"SessionStart","cwd":`+quote(proj)+`}`), now, o); strings.Contains(string(l), `"instructions"`) {
		t.Errorf("NoFiles: %s", l)
	}
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// TestInstructionLinkOutOfProject: a project's instruction file that is a
// link out of the project (a cloned repository's CLAUDE.md pointing at a
// secret of the user's) is listed as such, without the target's hash, and
// what it imports is not read.
func TestInstructionLinkOutOfProject(t *testing.T) {
	base := t.TempDir()
	proj := filepath.Join(base, "proj")
	secret := filepath.Join(base, "secret")
	os.MkdirAll(filepath.Join(proj, ".git"), 0o755)
	os.MkdirAll(filepath.Join(proj, ".claude", "rules"), 0o755)
	os.WriteFile(secret, []byte("hunter2 @in.md\n"), 0o600)
	os.WriteFile(filepath.Join(proj, "in.md"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(proj, "docs.md"), []byte("docs"), 0o644)
	os.Symlink(secret, filepath.Join(proj, "CLAUDE.md"))
	os.Symlink(filepath.Join(proj, "docs.md"), filepath.Join(proj, ".claude", "rules", "in-project.md"))
	_, files := prompt.ScanInstructions(proj, "")
	got := map[string]event.InstructionFile{}
	for _, f := range files {
		got[f.Path] = f
		if f.Hash == hash12([]byte("hunter2 @in.md\n")) {
			t.Fatalf("the secret was hashed through %s", f.Path)
		}
	}
	if f, ok := got[filepath.Join(proj, "CLAUDE.md")]; !ok || f.Hash != "" || f.Link != "outside_project" {
		t.Errorf("CLAUDE.md linked out: %+v (%v)", f, files)
	}
	if _, ok := got[filepath.Join(proj, "in.md")]; ok {
		t.Errorf("an import of the linked file was read: %v", files)
	}
	if f := got[filepath.Join(proj, ".claude", "rules", "in-project.md")]; f.Hash != hash12([]byte("docs")) || f.Link != "" {
		t.Errorf("a link inside the project: %+v", f)
	}
	// InstructionsLoaded names the file: the same rule.
	l := enrichMap(t, map[string]any{"session_id": "s", "hook_event_name": "InstructionsLoaded", "cwd": proj, "file_path": filepath.Join(proj, "CLAUDE.md")}, Options{UserHome: base})
	if in := l.sepa.Instructions; in == nil || len(in.Files) != 1 || in.Files[0].Hash != "" {
		t.Errorf("InstructionsLoaded of a link out: %+v", l.sepa.Instructions)
	}
}

// hash12 is a prompt version: the first 12 hex digits of the sha256.
func hash12(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
