package execution

import (
	"regexp"
	"testing"
)

// correctionExamples are clauses (lower case, as ReadVerdict reads them)
// that each alternative of correctionAnyRE matches.
var correctionExamples = []string{
	"that's wrong", "this is not what i asked", "it is made up", "not what i meant", "not true", "you hallucinated",
	"it doesnt work", "the build didn't compile", "tests do not pass", "it cannot run", "it won't start",
	"still failing", "still the same", "fails again", "same error as before", "you broke the build", "your fix deleted it",
	"you didnt run the tests", "you never tested it", "you forgot to save", "did you even run it",
	"revert that", "roll back the last commit", "rollback everything", "put back the previous change",
	"wrong file", "incorrect branch", "nothing changed", "it's not fixed", "still not passing",
	"isnt working", "weren't correct", "made it worse", "now it's even worse", "you only ran testmax",
	"i get the same error", "they dont", "it doesn't", "those did not", "go back to the previous version",
	"switch back to how it was",
}

// TestCorrectionPrefilter: every clause an alternative of correctionAnyRE
// matches holds that alternative's words (correctionAnyNeeds), so the
// prefilter changes no verdict; checked on the examples and on every
// clause of the verdict table.
func TestCorrectionPrefilter(t *testing.T) {
	if len(correctionAnyNeeds) != len(correctionAnyAlternatives) {
		t.Fatalf("%d word lists for %d alternatives", len(correctionAnyNeeds), len(correctionAnyAlternatives))
	}
	texts := append([]string(nil), correctionExamples...)
	for _, c := range verdictTable {
		texts = append(texts, clauses(ownWords(c.prompt))...)
	}
	matched := make([]bool, len(correctionAnyAlternatives))
	for _, c := range texts {
		checkCorrectionPrefilter(t, c, matched)
	}
	for i, m := range matched {
		if !m {
			t.Errorf("no example for alternative %d: %s", i, correctionAnyAlternatives[i])
		}
	}
}

var correctionAlternativeREs = func() []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, a := range correctionAnyAlternatives {
		out = append(out, regexp.MustCompile(a))
	}
	return out
}()

func checkCorrectionPrefilter(t *testing.T, c string, matched []bool) {
	t.Helper()
	for i, re := range correctionAlternativeREs {
		if !re.MatchString(c) {
			continue
		}
		if matched != nil {
			matched[i] = true
		}
		for _, words := range correctionAnyNeeds[i] {
			if !containsWord(c, words) {
				t.Errorf("alternative %d matches %q, which lacks all of %q", i, c, words)
			}
		}
	}
	if correctionAnyRE().MatchString(c) && !mayCorrect(c) {
		t.Errorf("correctionAnyRE matches %q, mayCorrect says no", c)
	}
}

// FuzzCorrectionPrefilter: on any prompt, every clause ReadVerdict reads
// passes the prefilter of each alternative that matches it.
func FuzzCorrectionPrefilter(f *testing.F) {
	for _, c := range correctionExamples {
		f.Add(c)
	}
	for _, c := range verdictTable {
		f.Add(c.prompt)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		for _, c := range clauses(ownWords(prompt)) {
			checkCorrectionPrefilter(t, c, nil)
		}
	})
}
