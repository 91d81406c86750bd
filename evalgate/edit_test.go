package evalgate

import (
	"testing"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/mutation"
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
