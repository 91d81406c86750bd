package evals

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReadResultPartial: a run cut short is read, named and refused.
func TestReadResultPartial(t *testing.T) {
	b, err := os.ReadFile("testdata/aggregate-result.json")
	if err != nil {
		t.Fatal(err)
	}
	partial := strings.Replace(string(b), `"partial": false`, `"partial": true, "partialReason": "cost ceiling"`, 1)
	file := filepath.Join(t.TempDir(), "aggregate-result.json")
	if err := os.WriteFile(file, []byte(partial), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = ReadResult(file)
	if !errors.Is(err, ErrPartial) || err.Error() != file+": the suite stopped early (cost ceiling): not recorded" {
		t.Fatalf("partial: %v", err)
	}
	if ev, err := ReadResult("testdata/aggregate-result.json"); err != nil || ev.Plugin != "acme" {
		t.Fatalf("whole: %+v %v", ev, err)
	}
	if _, err := ReadResult(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

// TestImport records a result for the prompt file's content now, and
// refuses one that started before the file's last change.
func TestImport(t *testing.T) {
	home := t.TempDir()
	skill := filepath.Join(t.TempDir(), "SKILL.md")
	if err := os.WriteFile(skill, []byte("Ship it.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	changed := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(skill, changed, changed); err != nil {
		t.Fatal(err)
	}
	target := Target{Key: "k", Name: "deploy", Path: skill}
	now := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)

	stale := &Evidence{RanAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	err := Import(home, stale, "r.json", target, now)
	want := "r.json: " + skill + " changed at 2026-11-02T00:00:00Z, after the suite started (2026-11-01T00:00:00Z): cannot tell which version it evaluated"
	if !errors.Is(err, ErrStale) || err.Error() != want {
		t.Fatalf("stale:\n got %v\nwant %s", err, want)
	}

	ev := &Evidence{RanAt: changed.Add(time.Hour), Plugin: "acme"}
	if err := Import(home, ev, "r.json", target, now); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("r.json")
	all, err := Load(home)
	if err != nil || len(all) != 1 {
		t.Fatalf("%+v %v", all, err)
	}
	got := all[0]
	if got.SkillKey != "k" || got.Skill != "deploy" || got.Version != "9d10156792b2" || !got.At.Equal(now) || got.Source != "import" || got.File != abs || got.Plugin != "acme" {
		t.Fatalf("recorded: %+v", got)
	}
}

// TestRecord records a suite run for the text it ran on, unless the file
// changed meanwhile or the run was cut short.
func TestRecord(t *testing.T) {
	home := t.TempDir()
	skill := filepath.Join(t.TempDir(), "SKILL.md")
	before := []byte("Ship it.\n")
	if err := os.WriteFile(skill, before, 0o600); err != nil {
		t.Fatal(err)
	}
	target := Target{Key: "k", Name: "deploy", Path: skill}
	now := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)

	err := Record(home, &Evidence{}, target, "", []byte("Ship it now.\n"), now)
	if !errors.Is(err, ErrChanged) || err.Error() != skill+": the prompt file changed during the eval: result not recorded" {
		t.Fatalf("changed: %v", err)
	}
	err = Record(home, &Evidence{Partial: true}, target, "", before, now)
	if !errors.Is(err, ErrPartial) || err.Error() != "the suite stopped early (-): result not recorded" {
		t.Fatalf("partial: %v", err)
	}
	if all, _ := Load(home); len(all) != 0 {
		t.Fatalf("recorded a refused run: %+v", all)
	}
	if err := Record(home, &Evidence{}, target, "proj", before, now); err != nil {
		t.Fatal(err)
	}
	if err := Record(home, &Evidence{Plugin: "acme"}, target, "proj", before, now); err != nil {
		t.Fatal(err)
	}
	all, err := Load(home)
	if err != nil || len(all) != 2 {
		t.Fatalf("%+v %v", all, err)
	}
	if g := all[0]; g.SkillKey != "k" || g.Skill != "deploy" || g.Version != "9d10156792b2" || !g.At.Equal(now) || g.Source != "sepad eval" || g.Plugin != "proj" {
		t.Fatalf("recorded: %+v", g)
	}
	if all[1].Plugin != "acme" {
		t.Fatalf("the result's own plugin: %+v", all[1])
	}
}

func TestKeepDir(t *testing.T) {
	at := time.Date(2026, 11, 27, 21, 5, 9, 0, time.FixedZone("x", 3600))
	got := KeepDir("/state", `acme:deploy/a\b`, at)
	if want := filepath.Join("/state", "eval-runs", "acme_deploy_a_b-20261127T200509Z"); got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
