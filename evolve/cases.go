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

// suiteCases reads the shown half of the eval suite beside a SKILL.md
// (none when it has no suite): each case's prompt, regular files only.
func suiteCases(path string) (shown []Case, held int) {
	dir, ok := evals.SuiteDir(path)
	if !ok {
		return nil, 0
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0
	}
	prompts := map[string]string{}
	var names []string
	for _, e := range ents {
		if !e.IsDir() || e.Name() == "results" {
			continue
		}
		for _, f := range []string{"prompt.md", "case.yaml"} {
			p := filepath.Join(dir, e.Name(), f)
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > 1<<20 {
				continue
			}
			b, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			prompts[e.Name()] = string(b)
			names = append(names, e.Name())
			break
		}
	}
	s, h := SplitCases(names)
	for i, n := range s {
		if i == MaxCases {
			break
		}
		shown = append(shown, Case{Name: n, Prompt: cut(prompts[n], MaxCaseText)})
	}
	return shown, len(h)
}
