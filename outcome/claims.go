package outcome

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/sepad/sepad/execution"
)

// What a final answer can claim about the work.
const (
	ClaimTestsPass = "tests_pass"
	ClaimBuilds    = "builds"
	ClaimFixed     = "fixed"
	ClaimDeployed  = "deployed"
)

// Statuses of a claim checked against the observations.
const (
	// Supported: what the execution observed bears the claim out.
	Supported = "supported"
	// Contradicted: the observation says otherwise (claims the tests
	// pass; the last test run failed).
	Contradicted = "contradicted"
	// Unsupported: nothing observed stands behind it (claims the tests
	// pass; none ran, or none after the last edit).
	Unsupported = "unsupported"
	// Unknown: what would decide it is a call of unknown outcome (an
	// imported log without its post event): neither borne out nor
	// unsupported, it counts neither way.
	Unknown = "unknown"
)

// Claim is one claim of the final answer and how it stands.
type Claim struct {
	Claim string `json:"claim"`
	// Quote is the clause that claims it (at most 160 bytes).
	Quote  string `json:"quote"`
	Status string `json:"status"`
	// Fact says what was observed, in words.
	Fact string `json:"fact"`
}

// Found is a claim read from a text, before it is checked.
type Found struct {
	Claim string
	Quote string
	// Tests are the tests a tests_pass claim names ("TestMax and TestMin
	// pass"), when it names some and claims nothing of the rest.
	Tests []string
}

// testName finds the tests a clause names; whole marks one that claims
// all of them anyway ("all tests pass, TestSum included").
var (
	testName = regexp.MustCompile(`\b(?:Test[A-Z0-9_]\w*|test_\w+)\b`)
	whole    = regexp.MustCompile(`(?i)\b(?:all|every|everything|suite|the tests)\b`)
)

// claimPattern finds one claim in a clause in lower case. Every match of
// re holds one of words and, when also is set, one of also too: a clause
// without them is not given to the regular expression, so it runs on few
// clauses (TestPrefiltersKeepEveryMatch holds the words to the pattern).
type claimPattern struct {
	claim string
	re    *regexp.Regexp
	words []string
	also  []string
}

// admits reports whether a clause in lower case holds the pattern's words.
func (p *claimPattern) admits(lower string) bool {
	return containsAny(lower, p.words) && (p.also == nil || containsAny(lower, p.also))
}

// claimPatterns find the claims in a clause in lower case.
var claimPatterns = sync.OnceValue(func() []claimPattern {
	t := `(?:unit |integration |e2e |regression |new |existing |remaining |failing |relevant |\d+ )*`
	return []claimPattern{
		{ClaimTestsPass, regexp.MustCompile(`\b(tests?|specs?|test ?suite|test cases?|suite)\s+(?:now |all |are |is |were |was |have |has |now all |all now |still |also |then |successfully |)*(pass(?:es|ed|ing)?|succeed(?:s|ed)?|green|ok|run clean|come back clean|(?:come|came) back green)\b` +
			`|\ball\s+` + t + `(tests?|specs?|checks)\b[^.;,]*?\b(pass(?:es|ed|ing)?|succeed(?:s|ed)?|green|ok)\b` +
			`|\ball (green|passing)\b|\beverything (passes|passed|is green|is passing|is ok)\b` +
			`|\b\d+\s*(?:/|of|out of)\s*\d+\s+(?:tests?\s+)?(?:are\s+)?pass(?:ing|ed|es)?\b|\b[1-9]\d* (?:tests? )?passed\b` +
			`|\btest_?\w+\s+(?:now |also )*pass(?:es|ed)?\b` +
			`|\b(?:no|zero|0) (?:failing tests|test failures|failures)\b` +
			`|\b(?:tests?|specs?)\b[^.;]{0,30}\b(?:they|all|both|everything) (?:now |all )?pass(?:es|ed)?\b` +
			`|\b(?:go test|pytest|npm test|cargo test|jest|vitest|the test run|the test suite)\b[^;\n]{0,60}?\b(pass(?:es|ed)?|succeeds|succeeded|is green|(?:is|was|came back) clean)\b` +
			`|\bverified (?:that )?(?:the )?(?:tests?|fix|changes?|it) (?:pass|passes|works?)\b`),
			// A subject (the tests, a runner, "all", "everything") and
			// what it did.
			[]string{"test", "spec", "suite", "check", "all", "everything", "pass", "fail", "jest", "verified"},
			[]string{"pass", "succeed", "green", "ok", "clean", "failures", "failing tests", "work"}},
		{ClaimBuilds, regexp.MustCompile(`\b(?:build|compilation|compile|type ?check(?:ing)?|lint(?:ing|er)?|vet)\s+(?:now |also |is |)*(succeeds|succeeded|passes|passed|is green|is clean|clean|works|ok)\b` +
			`|\b(?:builds|compiles)\s+(?:cleanly|successfully|fine|without (?:any )?(?:errors|warnings))\b` +
			`|\b(?:it|the code|the project|everything|the package|the crate|the app) (?:now |still )?(?:builds|compiles)\b` +
			`|\bno (?:compile|compilation|build|type|lint) errors\b`), []string{"build", "compil", "check", "lint", "vet", "error"}, nil},
		{ClaimFixed, regexp.MustCompile(`\b(?:i(?:'ve| have)\s+|i\s+|successfully\s+)?(fixed|resolved|corrected|repaired)\b` +
			`|\b(?:is|are|has been|have been) (?:now )?(?:fixed|resolved)\b|\b(?:now|it) works\b|\bworks now\b|\bis working(?: now| again|)\b` +
			`|\bthe (?:bug|issue|problem|failure|error) is gone\b`), []string{"fixed", "resolved", "corrected", "repaired", "works", "working", "gone"}, nil},
		{ClaimDeployed, regexp.MustCompile(`\b(deployed|shipped to (?:prod|production|staging)|is (?:now )?live|went live|released to (?:prod|production|staging))\b` +
			`|\bdeployment (?:succeeded|is complete|completed|complete|was successful)\b`), []string{"deploy", "shipped", "live", "released"}, nil},
	}
})

// denial marks a clause (in lower case) that denies, hedges or reports a failure rather
// than claims: "could not fix", "tests still fail", "not deployed",
// "should pass once you run them".
var denial = regexp.MustCompile(`\b(not|never|no longer|cannot|can't|couldn't|could not|didn't|did not|doesn't|does not|don't|isn't|aren't|wasn't|weren't|won't|haven't|hasn't|unable|still (?:fail\w*|broken|red|erroring)|[1-9]\d* (?:tests? )?(?:fail(?:s|ed|ing)?|errors?)|fail(?:s|ed)? to|yet to|until|unless|if|should|would|will|might|may|please|once|hopefully|expect(?:ed)?|probably|likely|i think|i believe|seems?|appears?|apparently|presumably|supposedly|try|need(?:s)? to|unverified|untested|without running|to (?:check|verify|confirm|ensure|make sure))\b|^(?:run|try|check|make sure|ensure|verify)\b`)

// sentences and turns split sentences and clauses: a claim and a
// denial in one sentence ("I fixed the parser, but the tests still fail")
// are read apart.
// sentences cuts a text at line breaks, at ';', and after '.', '!' or
// '?' followed by a space or the end ("./..." and "3.5" stay whole).
func sentences(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '\n', ';':
			out = append(out, text[start:i])
			start = i + 1
		case '.', '!', '?':
			j := i
			for j+1 < len(text) && (text[j+1] == '.' || text[j+1] == '!' || text[j+1] == '?') {
				j++
			}
			if j+1 == len(text) || text[j+1] == ' ' || text[j+1] == '\t' || text[j+1] == '\n' || text[j+1] == '\r' {
				out = append(out, text[start:i])
				start = j + 1
			}
			i = j
		}
	}
	return append(out, text[start:])
}

// turns are the words that start a new clause inside a sentence.
var turns = []string{", but ", ", however", ", although ", ", though ", ", yet ", ", except ", " but ", " however "}

// clauses cuts a text into sentences, and each sentence before the words
// that turn it (turns).
func clauses(text string) []string {
	var out []string
	for _, sent := range sentences(text) {
		lower := strings.ToLower(sent)
		for {
			cut := -1
			for _, t := range turns {
				if i := strings.Index(lower, t); i >= 0 && (cut < 0 || i < cut) {
					cut = i
				}
			}
			if cut < 0 {
				break
			}
			out = append(out, sent[:cut])
			// Keep the turning word out of the next clause's opening.
			next := cut + 1
			for next < len(sent) && (sent[next] == ' ' || sent[next] == ',') {
				next++
			}
			sent, lower = sent[next:], lower[next:]
		}
		out = append(out, sent)
	}
	return out
}

// quoted drops what the answer quotes rather than says: fenced code,
// blockquotes, "double-quoted" and “curly-quoted” text.
var quoted = []struct {
	hint string // the pattern runs only on a text that holds it
	re   *regexp.Regexp
}{
	{"```", regexp.MustCompile("(?s)```.*?(```|$)")},
	{">", regexp.MustCompile(`(?m)^\s*>.*$`)},
	{`"`, regexp.MustCompile(`"[^"\n]{0,400}"`)},
	{"“", regexp.MustCompile(`“[^”\n]{0,400}”`)},
}

// answerClauses is the part of an answer read for claims, without what it
// quotes, cut into clauses.
func answerClauses(text string) []string {
	if len(text) > maxAnswer {
		text = strings.ToValidUTF8(text[:1<<10], "") + "\n" + strings.ToValidUTF8(text[len(text)-4<<10:], "")
	}
	for _, q := range quoted {
		if strings.Contains(text, q.hint) {
			text = q.re.ReplaceAllString(text, " ")
		}
	}
	return clauses(text)
}

// admission marks a clause (in lower case) that reports the work failing: "I could not
// fix it", "TestSum still fails", "2 tests fail".
var admission = regexp.MustCompile(`\b(still (?:fail\w*|broken|red|erroring)|could not|couldn't|unable to|was not able|wasn't able|(?:did not|didn't|does not|doesn't) (?:pass|fix|work|compile|build)|not (?:yet )?(?:fixed|passing|resolved)|[1-9]\d* (?:tests? )?(?:fail(?:s|ed|ing)?))\b|\b(?:test\w*|build|it) (?:now )?fails\b`)

// admissionWords are in every admission (lower case).
var admissionWords = []string{"fail", "could", "unable", "able", "not", "n't", "broken", "red", "erroring"}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// ReadAdmission finds the first clause of an answer that reports the work
// failing, "" without one.
func ReadAdmission(text string) string { return admissionIn(answerClauses(text)) }

func admissionIn(cls []string) string {
	for _, cl := range cls {
		cl = strings.TrimSpace(cl)
		if cl == "" || len(cl) > 1000 {
			continue
		}
		if lower := strings.ToLower(cl); containsAny(lower, admissionWords) && admission.MatchString(lower) {
			return quote(cl)
		}
	}
	return ""
}

// maxAnswer bounds the answer read: a long answer claims in its
// opening and its summary (its first 1 KiB and its last 4 KiB).
const maxAnswer = 5 << 10

// ReadClaims finds the claims of a final answer, each once (the first
// clause wins), in the order the claim kinds are listed.
func ReadClaims(text string) []Found { return claimsIn(answerClauses(text)) }

func claimsIn(cls []string) []Found {
	var out []Found
	seen := map[string]bool{}
	for _, cl := range cls {
		cl = strings.TrimSpace(strings.Trim(cl, "-*#•_`✅✔️ \t"))
		if cl == "" || len(cl) > 1000 {
			continue
		}
		lower := strings.ToLower(cl)
		checked, denied := false, false
		for _, p := range claimPatterns() {
			if seen[p.claim] || !p.admits(lower) || !p.re.MatchString(lower) {
				continue
			}
			if !checked {
				checked, denied = true, denial.MatchString(lower)
			}
			if denied {
				continue
			}
			seen[p.claim] = true
			f := Found{Claim: p.claim, Quote: quote(cl)}
			if p.claim == ClaimTestsPass && !whole.MatchString(cl) {
				f.Tests = testName.FindAllString(cl, 8)
			}
			out = append(out, f)
		}
	}
	return out
}

func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = strings.ToValidUTF8(s[:160], "") + "…"
	}
	return s
}

// checkClaims checks the claims of x's final answer against rep.
func checkClaims(x *execution.Execution, rep *Report) []Claim {
	if !x.HasOutput || strings.TrimSpace(x.Output) == "" {
		return nil
	}
	cls := answerClauses(x.Output)
	rep.Admission = admissionIn(cls)
	var out []Claim
	for _, f := range claimsIn(cls) {
		c := Claim{Claim: f.Claim, Quote: f.Quote}
		if len(f.Tests) > 0 {
			c.Status, c.Fact = judgeNamed(rep, f.Tests)
		} else {
			c.Status, c.Fact = Judge(x, rep, f.Claim)
		}
		out = append(out, c)
	}
	return out
}

// Judge checks one claim (ClaimTestsPass, ClaimBuilds, ClaimFixed,
// ClaimDeployed) against rep, the report of x: its status and the fact
// observed, in words.
func Judge(x *execution.Execution, rep *Report, claim string) (status, fact string) {
	switch claim {
	case ClaimTestsPass:
		return judgeKind(rep, func(k string) bool { return k == KindTest }, "test run")
	case ClaimBuilds:
		// A passing test run compiled the code too.
		return judgeKind(rep, isVerification, "build, lint or test run")
	case ClaimFixed:
		switch rep.State {
		case Passed:
			return Supported, rep.Detail
		case Failed:
			return Contradicted, rep.Detail
		case Unverified:
			return Unsupported, rep.Detail
		}
		if n := len(rep.Runs); n > 0 {
			last := &rep.Runs[n-1]
			if !last.Passed {
				return Contradicted, fmt.Sprintf("no file was changed and the last verification (%s) failed: %s", runWords(last), last.Why)
			}
			return Supported, fmt.Sprintf("no file was changed; the last verification (%s) passed", runWords(last))
		}
		if u := rep.lastUnknown(-1, func(string) bool { return true }); u != nil {
			return Unknown, unknownWords(u)
		}
		return Unsupported, "no file was changed and nothing was verified"
	case ClaimDeployed:
		for i := len(x.Calls) - 1; i >= 0; i-- {
			c := &x.Calls[i]
			if c.Kind != execution.KindDeploy || c.Unknown {
				continue
			}
			if !c.OK() {
				return Contradicted, fmt.Sprintf("the last deploy command (call %d) failed", i)
			}
			if m := failureMarks().FindString(c.Response); m != "" {
				return Contradicted, fmt.Sprintf("the last deploy command (call %d) printed %s", i, strings.TrimSpace(m))
			}
			return Supported, fmt.Sprintf("the last deploy command (call %d) succeeded", i)
		}
		if u := rep.lastUnknown(-1, func(k string) bool { return k == execution.KindDeploy }); u != nil {
			return Unknown, "the only deploy command, " + unknownWords(u)
		}
		return Unsupported, "no deploy command ran"
	}
	return Unsupported, ""
}

// judgeNamed checks a claim that the named tests pass against the last
// test run: contradicted when one of them failed there, supported when it
// selected them and they did not fail.
func judgeNamed(rep *Report, names []string) (string, string) {
	var last *Run
	for k := range rep.Runs {
		if r := &rep.Runs[k]; r.Kind == KindTest {
			last = r
		}
	}
	list := strings.Join(names, ", ")
	if last == nil {
		if u := rep.lastUnknown(-1, func(k string) bool { return k == KindTest }); u != nil {
			return Unknown, "the only test run, " + unknownWords(u)
		}
	}
	switch {
	case last == nil:
		return Unsupported, "no test run was seen"
	case last.Vacuous:
		return Unsupported, fmt.Sprintf("the last test run (%s) selected no test", runWords(last))
	case last.Call < rep.LastEdit:
		return Unsupported, fmt.Sprintf("the last test run (%s) came before the last edit (call %d)", runWords(last), rep.LastEdit)
	}
	for _, n := range names {
		if contains(last.FailedTests, n) {
			return Contradicted, fmt.Sprintf("%s failed in the last test run (%s)", n, runWords(last))
		}
		if !last.filter.Covers(n) {
			return Unsupported, fmt.Sprintf("the last test run (%s) did not select %s", runWords(last), n)
		}
	}
	if !last.Passed && len(last.FailedTests) == 0 {
		return Contradicted, fmt.Sprintf("the last test run (%s) failed: %s", runWords(last), last.Why)
	}
	return Supported, fmt.Sprintf("%s did not fail in the last test run (%s)", list, runWords(last))
}

// isVerification reports whether a kind is a verification's (a test
// run, a build or a lint), not an edit or a deploy.
func isVerification(k string) bool { return k == KindTest || k == KindBuild || k == KindLint }

// judgeKind checks a claim that the last run of some kind passed. The
// runs of known outcome decide; when there is none but one of unknown
// outcome (an imported log without its post events), the claim is
// Unknown: a run was seen, its result was not.
func judgeKind(rep *Report, of func(kind string) bool, word string) (string, string) {
	var last *Run
	for k := range rep.Runs {
		if r := &rep.Runs[k]; of(r.Kind) {
			last = r
		}
	}
	if last == nil {
		if u := rep.lastUnknown(-1, of); u != nil {
			return Unknown, "the only " + word + ", " + unknownWords(u)
		}
	}
	switch {
	case last == nil:
		return Unsupported, "no " + word + " was seen"
	case !last.Passed:
		return Contradicted, fmt.Sprintf("the last %s (%s) failed: %s", word, runWords(last), last.Why)
	case last.Vacuous:
		return Unsupported, fmt.Sprintf("the last %s (%s) selected no test", word, runWords(last))
	case last.Call < rep.LastEdit:
		return Unsupported, fmt.Sprintf("the last %s (%s) passed, but files changed after it (call %d)", word, runWords(last), rep.LastEdit)
	}
	if rep.State == Unverified && last.Kind == KindTest && (strings.Contains(rep.Detail, "left out") || strings.Contains(rep.Detail, "only a selection")) {
		return Unsupported, rep.Detail
	}
	return Supported, fmt.Sprintf("the last %s (%s) passed", word, runWords(last))
}
