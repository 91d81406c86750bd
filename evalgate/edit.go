package evalgate

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/query"
)

// Baseline is what a person's edit is gated against.
type Baseline struct {
	// Hash is the baseline's hash: the edit's own when sepad knows no
	// other version (there is no edit to gate).
	Hash string
	// Words name it: "v2 (3f1c…, accepted)", or the file it was read from.
	Words string
	// Text is its text, nil when only its recorded eval score can stand
	// for it.
	Text []byte
}

// Versions is where an edit's baseline is looked up: the skill's versions
// and one version's text, as sepad's views answer them.
type Versions struct {
	List    func() (*query.SkillVersions, error)
	Content func(hash string) (*query.VersionContent, error)
}

// EditBaseline finds the baseline of an edit whose text hashes to cand:
// the file or version want names, else the version PickBaseline chooses
// among sepad's versions of the skill.
func EditBaseline(cand, want string, vs Versions) (Baseline, error) {
	if want != "" {
		if fi, err := os.Stat(want); err == nil && fi.Mode().IsRegular() {
			b, err := os.ReadFile(want)
			if err != nil {
				return Baseline{}, err
			}
			h := promptfile.Hash(b)
			return Baseline{Hash: h, Words: "the baseline " + h + " (" + want + ")", Text: b}, nil
		}
	}
	list, err := vs.List()
	if err != nil {
		return Baseline{}, fmt.Errorf("%w (or give --baseline FILE, the text to compare with)", err)
	}
	pick, err := PickBaseline(list, cand, want)
	if err != nil {
		return Baseline{}, err
	}
	words := fmt.Sprintf("v%d (%s, %s)", pick.Version, pick.Hash, orDash(pick.Status))
	if pick.Hash == cand && want == "" { // PickBaseline found no other
		return Baseline{Hash: cand, Words: words + ", the only version sepad knows"}, nil
	}
	vc, err := vs.Content(pick.Hash)
	if err != nil {
		return Baseline{}, err
	}
	b := Baseline{Hash: pick.Hash, Words: words}
	if vc.ContentKnown {
		b.Text = []byte(vc.Content)
	}
	return b, nil
}

// Edit gates a person's edit, text, the prompt file t's text now, against
// base with the gate ForEdit chooses, recording both suite runs as
// evidence in home (source "sepad eval --gate"). A prompt file changed
// while the suites ran is refused with evals.ErrChanged.
func Edit(ctx context.Context, claude string, conf *config.Config, home string, t evals.Target, base Baseline, text []byte) (*evals.Verdict, error) {
	g := ForEdit(conf, t.Name)
	ctx, cancel := context.WithTimeout(ctx, Timeout(g))
	defer cancel()
	cand := promptfile.Hash(text)
	v, err := Suite(ctx, claude, g, home, mutation.GateCandidate{SkillKey: t.Key, Skill: t.Name, Path: t.Path,
		Baseline: base.Hash, BaselineContent: base.Text, Candidate: cand, Content: text}, "sepad eval --gate")
	if err != nil {
		return nil, err
	}
	if after, err := os.ReadFile(t.Path); err != nil || promptfile.Hash(after) != cand {
		return nil, fmt.Errorf("%s: %w", t.Path, evals.ErrChanged)
	}
	return v, nil
}

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
			return nil, fmt.Errorf("no version %s of %s (and no such file)", want, query.DisplayName(vs.Skill.Name))
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
		return nil, fmt.Errorf("sepad knows no version of %s other than the file's text: give --baseline FILE, the text to compare with", query.DisplayName(vs.Skill.Name))
	}
	return pick, nil
}
