package mutation

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOneHomePerProject (issue 15 point 6): a project held by another
// sepad home (its claim names a home that still has a database) is never
// written: the rollback is a conflict naming that home. Once the other
// home is gone, this home takes the project over and writes.
func TestOneHomePerProject(t *testing.T) {
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "sepa.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o := rigOptions()
	o.Home = t.TempDir()
	r := newEngineRig(t, o)
	claim := filepath.Join(r.proj, ".claude", ownerName)
	if err := os.WriteFile(claim, []byte(other+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, v2body := degrade(r)
	recs := r.records()
	last := recs[len(recs)-1]
	if last.Kind != KindConflict || last.Applied || !strings.Contains(last.Words, "belongs to the sepad home "+other) ||
		!strings.Contains(last.Words, "remove "+claim) {
		t.Fatalf("record %+v", last)
	}
	if b, _ := os.ReadFile(r.skill); string(b) != v2body {
		t.Fatalf("a project held by another home was written: %q", b)
	}
	// The other home is gone: taken over.
	os.Remove(filepath.Join(other, "sepa.db"))
	if rec, err := r.e.ManualRollback(r.skill, "v1"); err != nil || !rec.Applied {
		t.Fatalf("after the holder is gone: %+v %v", rec, err)
	}
	if b, _ := os.ReadFile(claim); strings.TrimSpace(string(b)) != filepath.Clean(o.Home) {
		t.Fatalf("claim after the takeover: %q", b)
	}
}

// TestFirstHomeClaimsAtStart: a daemon claims the roots with prompt
// files when it starts; a second home then refuses them.
func TestFirstHomeClaimsAtStart(t *testing.T) {
	o := rigOptions()
	o.Home = t.TempDir()
	os.WriteFile(filepath.Join(o.Home, "sepa.db"), nil, 0o600)
	r := newEngineRig(t, o)
	claim := filepath.Join(r.proj, ".claude", ownerName)
	if b, err := os.ReadFile(claim); err != nil || strings.TrimSpace(string(b)) != filepath.Clean(o.Home) {
		t.Fatalf("claim after start: %q %v", b, err)
	}
	o2 := o
	o2.Home = t.TempDir()
	o2.ExtraRoots = []string{r.proj}
	e2 := NewEngine(r.db, o2)
	if other, _ := e2.heldElsewhere(r.skill, e2.WriteRoots()); other != filepath.Clean(o.Home) {
		t.Fatalf("a second home sees the project held by %q, want %q", other, o.Home)
	}
}
