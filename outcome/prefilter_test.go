package outcome

import (
	"strings"
	"testing"
)

// prefilterExamples are clauses in lower case that each alternative of the
// claim and admission patterns matches: a prefilter that leaves out one
// of them changes a result.
var prefilterExamples = []string{
	// tests_pass, one per alternative of its pattern.
	"the tests all pass", "specs are green", "the test suite came back green", "tests ok",
	"all unit tests passed", "all checks passed", "all green", "all passing",
	"everything is ok", "everything passes", "3 out of 3 tests pass", "3/3 passing", "12 passed",
	"test_sum now passes", "testsum also passes", "no failing tests", "zero failures",
	"ran the tests: they all pass", "jest succeeded", "go test ./... came back clean", "pytest is green",
	"i verified the fix works", "verified that it works", "verified the changes pass",
	// builds.
	"the build succeeds", "vet is clean", "lint passes", "type checking passes", "it compiles cleanly",
	"builds without any warnings", "the project builds", "the crate now compiles", "no type errors",
	// fixed.
	"i fixed it", "corrected the sum", "repaired the parser", "the bug is fixed", "it has been resolved",
	"it works", "now works", "works now", "is working again", "the issue is gone",
	// deployed.
	"deployed to prod", "shipped to production", "is now live", "went live", "released to staging",
	"deployment completed", "the deployment was successful",
	// admissions.
	"testsum still fails", "it is still broken", "could not fix it", "couldn't", "unable to run it",
	"was not able to", "wasn't able to", "didn't pass", "does not compile", "not yet fixed",
	"2 tests failing", "1 failed", "the build fails", "it now fails",
}

// checkPrefilters fails when a claim or admission pattern matches lower
// (a clause in lower case) and its prefilter does not let it through.
func checkPrefilters(t *testing.T, lower string) {
	t.Helper()
	for _, p := range claimPatterns() {
		if p.re.MatchString(lower) && !p.admits(lower) {
			t.Errorf("%s's pattern matches %q, its words do not: the prefilter changes the result", p.claim, lower)
		}
	}
	if admission.MatchString(lower) && !containsAny(lower, admissionWords) {
		t.Errorf("the admission pattern matches %q, admissionWords do not", lower)
	}
}

// TestPrefiltersKeepEveryMatch: every clause a pattern matches holds the
// pattern's words, so the prefilters leave every result as the regular
// expressions alone give it; and each example is a claim or an admission.
func TestPrefiltersKeepEveryMatch(t *testing.T) {
	for _, ex := range prefilterExamples {
		checkPrefilters(t, ex)
		matched := admission.MatchString(ex)
		for _, p := range claimPatterns() {
			matched = matched || p.re.MatchString(ex)
		}
		if !matched {
			t.Errorf("%q: no pattern matches this example", ex)
		}
	}
}

// FuzzPrefilters: on any text, every clause a pattern matches passes its
// prefilter.
func FuzzPrefilters(f *testing.F) {
	for _, ex := range prefilterExamples {
		f.Add(ex)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, cl := range answerClauses(text) {
			checkPrefilters(t, strings.ToLower(strings.TrimSpace(cl)))
		}
	})
}
