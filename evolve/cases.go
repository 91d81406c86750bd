package evolve

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/sepad/sepad/evals"
)

// MaxCaseText cuts each eval case's prompt in a request; MaxCases is the
// most cases shown.
const (
	MaxCaseText = 600
	MaxCases    = 6
)

// Case is an eval case of the skill's suite shown to the mutator.
type Case struct {
	Name string `json:"name"`
	// Prompt is the case's prompt.md (or case.yaml), cut.
	Prompt string `json:"prompt"`
}

// SplitCases splits a suite's case names, in name order, into the cases
// shown to the mutator (the 1st, 3rd, 5th…) and those held out (the 2nd,
// 4th…): a suite of one case is shown whole.
func SplitCases(names []string) (shown, held []string) {
	names = slices.Clone(names)
	slices.Sort(names)
	for i, n := range names {
		if i%2 == 1 {
			held = append(held, n)
		} else {
			shown = append(shown, n)
		}
	}
	return shown, held
}

// suiteCases reads the eval suite beside a SKILL.md (none when it has
// no suite): the shown half, each case's prompt (regular files only),
// and the names of the held-out half, which the eval gate runs.
func suiteCases(path string) (shown []Case, held []string) {
	dir, ok := evals.SuiteDir(path)
	if !ok {
		return nil, nil
	}
	s, h := SplitCases(evals.CaseNames(dir))
	for _, n := range s {
		if len(shown) == MaxCases {
			break
		}
		for _, f := range []string{"prompt.md", "case.yaml"} {
			p := filepath.Join(dir, n, f)
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
				continue
			}
			if b, err := os.ReadFile(p); err == nil {
				shown = append(shown, Case{Name: n, Prompt: cut(string(b), MaxCaseText)})
				break
			}
		}
	}
	return shown, h
}
