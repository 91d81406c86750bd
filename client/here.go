package client

import (
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sepad/sepad/query"
)

// Here answers a skill name that several projects use (err, the API's 409
// with the candidates) with the skill of the project that holds the
// working directory wd (the innermost, when projects nest): path with the
// name replaced by that skill's key, the skill, and the other candidates'
// keys as shown. ok is false for any other error, outside all of the
// projects, when two hold wd equally (the name stays ambiguous and the
// error lists the choices), and when path does not name the skill by a
// bare name (PROJECT#name and a path say which skill already).
func Here(path string, err error, wd string) (here string, skill query.SkillRef, others []string, ok bool) {
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != http.StatusConflict || len(ae.Candidates) < 2 {
		return "", query.SkillRef{}, nil, false
	}
	ref, ok := hereSkill(ae.Candidates, wd)
	if !ok {
		return "", query.SkillRef{}, nil, false
	}
	out := path
	for _, name := range []string{ref.Name, ref.Display} {
		if name == "" {
			continue
		}
		seg, key := "/v1/skills/"+url.PathEscape(name), "/v1/skills/"+url.PathEscape(ref.Key)
		if strings.HasPrefix(out, seg+"/") || strings.HasPrefix(out, seg+"?") || out == seg {
			out = key + out[len(seg):]
		}
		q := "skill=" + url.QueryEscape(name)
		for _, sep := range []string{"?", "&"} {
			if i := strings.Index(out, sep+q); i >= 0 && (len(out) == i+len(sep+q) || out[i+len(sep+q)] == '&') {
				out = out[:i] + sep + "skill=" + url.QueryEscape(ref.Key) + out[i+len(sep+q):]
			}
		}
	}
	if out == path {
		return "", query.SkillRef{}, nil, false
	}
	for _, c := range ae.Candidates {
		if c.Key != ref.Key {
			others = append(others, query.DisplayKey(c.Key))
		}
	}
	return out, ref, others, true
}

// hereSkill is the candidate whose project holds the working directory
// wd (the innermost, when projects nest).
func hereSkill(cands []query.SkillRef, wd string) (query.SkillRef, bool) {
	dirs := []string{filepath.Clean(wd)}
	if real, err := filepath.EvalSymlinks(wd); err == nil && real != dirs[0] {
		dirs = append(dirs, real)
	}
	var best query.SkillRef
	tie := false
	for _, c := range cands {
		if c.Project == "" || !slices.ContainsFunc(dirs, func(d string) bool { return within(d, c.Project) }) {
			continue
		}
		switch {
		case len(c.Project) > len(best.Project):
			best, tie = c, false
		case len(c.Project) == len(best.Project):
			tie = true
		}
	}
	return best, best.Key != "" && !tie
}

// within reports whether dir is project or below it.
func within(dir, project string) bool {
	rel, err := filepath.Rel(filepath.Clean(project), dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
