package mutation

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/proposal"
)

// TestPluginPromptNeverWritten: a plugin skill graded F gets the decision
// and a notice with the advice, its file is left alone, and a rollback by
// hand is refused.
func TestPluginPromptNeverWritten(t *testing.T) {
	o := EngineOptions{Decide: decide.Options{Method: decide.MethodSepa, MinSamples: 5, MaxSamples: 60, Confidence: 0.95, Exploration: 0.2},
		AutoRollback: true, RollbackOnF: true, RollbackRatio: 0.7, RollbackFailRate: 0.5, GradeMin: 3, RollbackEdits: RollbackEditsAuto}
	var notices []string
	o.Notify = func(project, text string, _ time.Time) error { notices = append(notices, text); return nil }
	r := newEngineRig(t, o)
	plugin := filepath.Join(r.proj, "vendor-plugins", "acme")
	os.MkdirAll(filepath.Join(plugin, ".claude-plugin"), 0o755)
	os.WriteFile(filepath.Join(plugin, ".claude-plugin", "plugin.json"), []byte(`{"name":"acme","version":"1.2.0"}`), 0o644)
	r.skill = filepath.Join(plugin, "skills", "deploy", "SKILL.md")
	os.MkdirAll(filepath.Dir(r.skill), 0o755)
	v2body := "---\nname: deploy\n---\n# Deploy\n\nShip it.\n"
	os.WriteFile(r.skill, []byte(v2body), 0o644)
	v1 := promptfile.Hash([]byte("---\nname: deploy\n---\n# Deploy\n\nRun the checks, then ship.\n"))
	v2 := promptfile.Hash([]byte(v2body))
	for i := 0; i < 6; i++ {
		r.run(v1, 90)
	}
	for i := 0; i < 12; i++ {
		r.run(v2, 20)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v2body {
		t.Fatalf("sepad wrote a plugin's file:\n%s", b)
	}
	var found bool
	for _, rec := range r.records() {
		if rec.Kind == KindWouldRollBack && strings.Contains(rec.Words, "plugin acme") && rec.From == v2 && !rec.Applied {
			found = true
		}
		if rec.Applied {
			t.Errorf("a record says the plugin's file was written: %+v", rec)
		}
	}
	if !found {
		t.Fatalf("no decision about the plugin's version: %+v", r.records())
	}
	if len(notices) == 0 || !strings.Contains(notices[len(notices)-1], "pin the plugin's version or report it upstream") {
		t.Fatalf("notices: %q", notices)
	}
	sks, _ := r.db.Skills()
	_, err := r.e.ManualRollback(sks[0].Key, "v1")
	var ref *proposal.RefusalError
	if !errors.As(err, &ref) || ref.Rule != "plugin_file" {
		t.Fatalf("a rollback by hand of a plugin's file: %v", err)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v2body {
		t.Fatal("the rollback by hand wrote the plugin's file")
	}
}
