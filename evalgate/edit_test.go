package evalgate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/query"
)

// The baseline of an edit: the version named, else one judged good, else
// the newest that ran, else the one in force; never the edit itself
// unless it is all sepad knows.
func TestPickBaseline(t *testing.T) {
	vs := &query.SkillVersions{Skill: query.SkillRef{Name: "deploy"}, Versions: []query.GradeRow{
		{Version: 3, Hash: "ccc", Current: true},
		{Version: 2, Hash: "bbb", N: 4},
		{Version: 1, Hash: "aaa", Status: mutation.StatusBaseline},
	}}
	for _, c := range []struct{ cand, want, hash string }{
		{"ccc", "", "aaa"},
		{"ccc", "v2", "bbb"},
		{"ccc", "2", "bbb"},
		{"ccc", "cc", "ccc"},
		{"aaa", "", "bbb"},
	} {
		p, err := PickBaseline(vs, c.cand, c.want)
		if err != nil || p.Hash != c.hash {
			t.Errorf("cand %s want %q: %v %v, want %s", c.cand, c.want, p, err, c.hash)
		}
	}
	if _, err := PickBaseline(vs, "ccc", "v9"); err == nil {
		t.Error("v9 picked")
	}
	one := &query.SkillVersions{Versions: []query.GradeRow{{Version: 1, Hash: "aaa"}}}
	if p, err := PickBaseline(one, "aaa", ""); err != nil || p.Hash != "aaa" {
		t.Errorf("the only version: %v %v", p, err)
	}
	if _, err := PickBaseline(one, "zzz", ""); err != nil {
		t.Errorf("another version known: %v", err)
	}
	if _, err := PickBaseline(&query.SkillVersions{}, "zzz", ""); err == nil {
		t.Error("no version at all, no error")
	}
	cfg, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	if g := ForEdit(cfg, "deploy"); g.MaxDrop == nil || *g.MaxDrop != 0 || g.Threshold != nil {
		t.Errorf("gate off: %+v, want max_drop 0", g)
	}
}

// The baseline of an edit: a file named by --baseline, else a version of
// sepad's with its text when known, or the edit itself when it is all
// sepad knows.
func TestEditBaseline(t *testing.T) {
	vs := &query.SkillVersions{Skill: query.SkillRef{Name: "deploy"}, Versions: []query.GradeRow{
		{Version: 2, Hash: "bbb", Current: true},
		{Version: 1, Hash: "aaa", Status: mutation.StatusBaseline},
	}}
	texts := map[string]*query.VersionContent{"aaa": {ContentKnown: true, Content: "Run the checks.\n"}, "bbb": {}}
	var asked []string
	versions := Versions{
		List: func() (*query.SkillVersions, error) { return vs, nil },
		Content: func(h string) (*query.VersionContent, error) {
			asked = append(asked, h)
			return texts[h], nil
		},
	}
	b, err := EditBaseline("bbb", "", versions)
	if err != nil || b.Hash != "aaa" || b.Words != "v1 (aaa, baseline)" || string(b.Text) != "Run the checks.\n" {
		t.Errorf("the baseline version: %+v %v", b, err)
	}
	b, err = EditBaseline("ccc", "v2", versions)
	if err != nil || b.Hash != "bbb" || b.Words != "v2 (bbb, -)" || b.Text != nil {
		t.Errorf("a version without its text: %+v %v", b, err)
	}
	if strings.Join(asked, " ") != "aaa bbb" {
		t.Errorf("texts asked: %v", asked)
	}
	file := filepath.Join(t.TempDir(), "old.md")
	os.WriteFile(file, []byte("Run the checks.\n"), 0o600)
	b, err = EditBaseline("bbb", file, Versions{})
	if err != nil || b.Hash != promptfile.Hash([]byte("Run the checks.\n")) || b.Words != "the baseline "+b.Hash+" ("+file+")" || string(b.Text) != "Run the checks.\n" {
		t.Errorf("a file: %+v %v", b, err)
	}
	one := &query.SkillVersions{Versions: []query.GradeRow{{Version: 1, Hash: "aaa", Status: "observed"}}}
	b, err = EditBaseline("aaa", "", Versions{List: func() (*query.SkillVersions, error) { return one, nil }})
	if err != nil || b.Hash != "aaa" || b.Words != "v1 (aaa, observed), the only version sepad knows" {
		t.Errorf("the only version: %+v %v", b, err)
	}
	down := errors.New("no daemon")
	_, err = EditBaseline("aaa", "", Versions{List: func() (*query.SkillVersions, error) { return nil, down }})
	if !errors.Is(err, down) || err.Error() != "no daemon (or give --baseline FILE, the text to compare with)" {
		t.Errorf("no versions: %v", err)
	}
}

// TestEdit gates an edit with a stand-in for claude, and refuses a
// verdict on a prompt file that changed while the suites ran.
func TestEdit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in for claude is a shell script")
	}
	home := t.TempDir()
	skill := filepath.Join(t.TempDir(), ".claude", "skills", "deploy", "SKILL.md")
	os.MkdirAll(filepath.Join(filepath.Dir(skill), "evals", "rollback"), 0o755)
	os.WriteFile(filepath.Join(filepath.Dir(skill), "evals", "rollback", "prompt.md"), []byte("Roll back\n"), 0o644)
	edit := []byte("---\nname: deploy\n---\nRun the checks, then ship.\n")
	os.WriteFile(skill, edit, 0o644)
	bin := filepath.Join(t.TempDir(), "claude")
	script := `#!/bin/sh
printf '{"schemaVersion":1,"suite":{"threshold":1},"cases":[{"name":"rollback","aggregates":{"score":1}}],"aggregates":{"overallScore":1}}' > "$5"
[ -n "$TOUCH" ] && echo changed >> "$TOUCH"
exit 0
`
	os.WriteFile(bin, []byte(script), 0o755)
	cfg, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	target := evals.Target{Key: skill, Name: "deploy", Path: skill}
	base := Baseline{Hash: "b00000000000", Words: "v1", Text: []byte("---\nname: deploy\n---\nRun the checks.\n")}
	v, err := Edit(context.Background(), bin, cfg, home, target, base, edit)
	if err != nil || !v.Held {
		t.Fatalf("the edit: %+v %v", v, err)
	}
	all, _ := evals.Load(home)
	if len(all) != 2 || all[0].Version != "b00000000000" || all[1].Version != promptfile.Hash(edit) || all[1].Source != "sepad eval --gate" {
		t.Fatalf("evidence %+v", all)
	}
	t.Setenv("TOUCH", skill)
	if _, err := Edit(context.Background(), bin, cfg, home, target, base, edit); !errors.Is(err, evals.ErrChanged) {
		t.Fatalf("changed during the gate: %v", err)
	}
}
