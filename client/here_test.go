package client

import (
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sepad/sepad/query"
)

// TestHere: an ambiguous name is the skill of the project the command
// runs in (the innermost when projects nest), in the path's segment and in
// its skill= parameter; outside every project, in two equally, for a
// qualified name or another error, it stays as it was.
func TestHere(t *testing.T) {
	root := t.TempDir()
	shop, blog := filepath.Join(root, "shop"), filepath.Join(root, "blog")
	inner := filepath.Join(shop, "admin")
	shopKey, blogKey, innerKey := filepath.Join(shop, ".claude", "skills", "deploy", "SKILL.md"), filepath.Join(blog, ".claude", "skills", "deploy", "SKILL.md"), filepath.Join(inner, ".claude", "skills", "deploy", "SKILL.md")
	cands := []query.SkillRef{
		{Key: shopKey, Name: "deploy", Project: shop},
		{Key: blogKey, Name: "deploy", Project: blog},
		{Key: innerKey, Name: "deploy", Project: inner},
	}
	ambiguous := &APIError{Status: http.StatusConflict, Msg: "ambiguous", Candidates: cands}
	for _, c := range []struct {
		path, wd, want, skill string
	}{
		{"/v1/skills/deploy/versions", filepath.Join(shop, "src"), "/v1/skills/" + url.PathEscape(shopKey) + "/versions", shopKey},
		{"/v1/skills/deploy", inner, "/v1/skills/" + url.PathEscape(innerKey), innerKey},
		{"/v1/executions?limit=5&skill=deploy", blog, "/v1/executions?limit=5&skill=" + url.QueryEscape(blogKey), blogKey},
		{"/v1/skills/deploy", root, "", ""},             // outside every project
		{"/v1/skills/shop%23deploy", shop, "", ""},      // a qualified name
		{"/v1/executions?skill=deployer", shop, "", ""}, // another name
	} {
		here, ref, others, ok := Here(c.path, ambiguous, c.wd)
		if here != c.want || ok != (c.want != "") || ref.Key != c.skill {
			t.Errorf("%s in %s: %q %q %v, want %q", c.path, c.wd, here, ref.Key, ok, c.want)
		}
		if ok && (len(others) != 2 || slices.Contains(others, query.DisplayKey(ref.Key))) {
			t.Errorf("%s in %s: others %q", c.path, c.wd, others)
		}
	}
	tie := &APIError{Status: http.StatusConflict, Candidates: []query.SkillRef{{Key: "a", Name: "deploy", Project: shop}, {Key: "b", Name: "deploy", Project: shop}}}
	if _, _, _, ok := Here("/v1/skills/deploy", tie, shop); ok {
		t.Error("two skills of one project: not ambiguous")
	}
	for _, err := range []error{nil, errors.New("down"), &APIError{Status: http.StatusNotFound, Candidates: cands}} {
		if _, _, _, ok := Here("/v1/skills/deploy", err, shop); ok {
			t.Errorf("%v: read as ambiguous", err)
		}
	}
}
