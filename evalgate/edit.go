package evalgate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

// ForEdit is the gate on a person's edit (`sepad eval SKILL --gate`):
// the skill's mutation.eval_gate, or, when that is off, the suite's own
// threshold and no drop below the baseline (max_drop 0).
func ForEdit(conf *config.Config, skill string) config.EvalGate {
	if eg := conf.MutationFor(skill).EvalGate; eg.On() {
		return eg
	}
	zero := 0.0
	return config.EvalGate{MaxDrop: &zero}
}

// PickBaseline chooses the baseline of an edit whose text hashes to cand
// among sepad's versions of the skill: the version want names (vN, N or
// a hash prefix), else, among those that are not cand, the newest
// baseline, accepted or pinned one, else the newest that ran, else the
// one in force, else the newest. When cand is the only version sepad
// knows, it is returned (the caller finds no edit to gate).
func PickBaseline(vs *query.SkillVersions, cand, want string) (*query.GradeRow, error) {
	var pick *query.GradeRow
	if want != "" {
		w := strings.TrimPrefix(want, "v")
		for i := range vs.Versions {
			r := &vs.Versions[i]
			if strconv.Itoa(r.Version) == w || strings.HasPrefix(r.Hash, want) {
				pick = r
				break
			}
		}
		if pick == nil {
			return nil, fmt.Errorf("no version %s of %s (and no such file)", want, vs.Skill.Name)
		}
	}
	// A person's edits are versions as soon as the daemon sees them
	// (the version in force may be the edit itself, or an earlier edit
	// nobody ran): the baseline is a version judged good, else the
	// newest that ran, else the one in force, else the newest.
	for _, rule := range []func(r *query.GradeRow) bool{
		func(r *query.GradeRow) bool {
			return r.Status == mutation.StatusBaseline || r.Status == mutation.StatusAccepted || r.Status == mutation.StatusPinned
		},
		func(r *query.GradeRow) bool { return r.N > 0 },
		func(r *query.GradeRow) bool { return r.Current },
		func(*query.GradeRow) bool { return true },
	} {
		for i := range vs.Versions {
			if r := &vs.Versions[i]; pick == nil && r.Hash != cand && rule(r) {
				pick = r
			}
		}
	}
	if pick == nil {
		for i := range vs.Versions {
			if vs.Versions[i].Hash == cand {
				return &vs.Versions[i], nil
			}
		}
		return nil, fmt.Errorf("sepad knows no version of %s other than the file's text: give --baseline FILE, the text to compare with", vs.Skill.Name)
	}
	return pick, nil
}
