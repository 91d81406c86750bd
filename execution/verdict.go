package execution

import (
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A Verdict is what a person's next prompt says about the answer before
// it: a correction ("that's wrong, the tests still fail"), an acceptance
// ("thanks, works"), or nothing either way (a new request). The rules are
// in docs/executions.md, "The person's verdict"; the phrasings they were
// tested on are in verdict_test.go.
type Verdict string

// Verdicts.
const (
	VerdictNone       Verdict = ""
	VerdictCorrection Verdict = "correction"
	VerdictAcceptance Verdict = "acceptance"
)

// VerdictRecord is one verdict given on an execution, kept as evidence.
type VerdictRecord struct {
	Verdict Verdict `json:"verdict"`
	// Quote is the start of the prompt that gave it (at most
	// maxVerdictQuote bytes), so `explain` can say what the person said.
	Quote string    `json:"quote,omitempty"`
	Time  time.Time `json:"time,omitzero"`
}

// maxVerdictQuote bounds the prompt text kept with a verdict.
const maxVerdictQuote = 160

// maxVerdictInput bounds the prompt text read for a verdict: a verdict is
// said first, and a long prompt is a new request with pasted material.
const maxVerdictInput = 4096

// ReadVerdict reads a person's prompt as a verdict on the answer before
// it. A correction wins over an acceptance in the same prompt ("thanks,
// but it still fails"). Quoted text, code and quoted lines are not the
// person's words and are not read; negated and conditional phrasings
// ("it no longer fails", "if it still fails, …", "make sure the tests
// pass") are not verdicts.
func ReadVerdict(prompt string) Verdict {
	if len(prompt) > maxVerdictInput {
		prompt = prompt[:maxVerdictInput]
	}
	if IsTaskNotification(prompt) || strings.HasPrefix(strings.TrimSpace(prompt), "/") {
		return VerdictNone // Claude Code's notice, or a command typed
	}
	if pastedFailure(prompt) {
		return VerdictCorrection
	}
	s := ownWords(prompt)
	acc := false
	for i, c := range clauses(s) {
		if correctionClause(c, i == 0) {
			return VerdictCorrection
		}
		if !acc && acceptanceClause(c, i == 0) {
			acc = true
		}
	}
	if acc {
		return VerdictAcceptance
	}
	return VerdictNone
}

// IsCorrection reports whether a user prompt rejects or reverts the
// previous answer (ReadVerdict says VerdictCorrection).
func IsCorrection(prompt string) bool { return ReadVerdict(prompt) == VerdictCorrection }

// quoteOf is the prompt's start kept with a verdict, cut on a rune.
func quoteOf(prompt string) string {
	s := strings.Join(strings.Fields(prompt), " ")
	if len(s) <= maxVerdictQuote {
		return s
	}
	cut := maxVerdictQuote
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// pastedFailureRE matches a prompt that starts with pasted failing
// output: the person answers with what they saw.
var pastedFailureRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(--- FAIL|FAIL\t|FAIL: |FAIL\s+\S+\s+[0-9.]+s|FAILED |panic: |Traceback \(most recent call last\)|npm ERR!|error(\[E\d+\])?: )`)
})

func pastedFailure(prompt string) bool {
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			continue
		}
		return pastedFailureRE().MatchString(line)
	}
	return false
}

// quotedRE matches text that is not the person's own words: fenced and
// inline code, double-quoted text (straight, curly, guillemets), and
// quoted lines ("> …").
var quotedRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?s)```.*?(```|$)|~~~.*?(~~~|$)|`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|(?m)^\\s*>.*$")
})

// apostrophes reads typographic apostrophes as ': built once (a Replacer
// builds its tables at its first use), safe for concurrent use.
var apostrophes = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'")

// ownWords lowercases the prompt, reads typographic apostrophes as ',
// and blanks quoted text and code (each becomes "…", so a clause around
// it stays a clause).
func ownWords(prompt string) string {
	s := apostrophes.Replace(prompt)
	s = quotedRE().ReplaceAllString(s, " … ")
	return strings.ToLower(s)
}

// clauseSplitRE splits text into clauses: at sentence ends, semicolons,
// line breaks, dashes, and before "but"/"however"/"though".
var clauseSplitRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[.!?;:\n]+(\s|$)|\s[—–-]+\s|,?\s+(but|however|though|although)\b|\(|\)`)
})

func clauses(s string) []string {
	var out []string
	add := func(c, sep string) {
		c = strings.Trim(c, " \t\r,")
		if c == "" {
			return
		}
		if strings.Contains(sep, "?") {
			c += "?" // a question: acceptanceClause reads it so
		}
		out = append(out, c)
	}
	from := 0
	for _, m := range clauseSplitRE().FindAllStringIndex(s, -1) {
		add(s[from:m[0]], s[m[0]:m[1]])
		from = m[1]
	}
	add(s[from:], "")
	return out
}

// Corrections said at the very start of the prompt: a refusal, a revert.
var correctionStartRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(no+(\s*[,.!—–]|$|,?\s+(it|that|this|you|the|still|wrong|not|i|we|don'?t|stop|revert|undo)\b)|nope\b|nah\b|wrong\b|incorrect\b|not quite\b|not really\b|not (right|correct|it|working)\b|(please )?(undo|revert|roll ?back)( (please|it|that|this))?(\s*[,.!]|$)|(doesn'?t|does not|didn'?t|did not|isn'?t|won'?t|still doesn'?t) (work|compile|build|pass|run|fix)\b|are you sure\b|i (said|asked for|asked you to|told you|meant)\b|go back(\s*[,.!]|$)|stop(\s*[,.!]|$|\s+(that|it|doing|changing|editing|touching|deleting)\b)|ugh\b|hmm+,?\s+no\b|same (thing|error|failure|problem|issue|result)\b|still\b)`)
})

// Corrections said anywhere in a clause: correctionAnyAlternatives, one
// expression.
var correctionAnyRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join(correctionAnyAlternatives, "|"))
})

var correctionAnyAlternatives = []string{
	// that's wrong, this is not what I asked
	`\b(that'?s|that is|this is|this'?s|it'?s|it is|you'?re|you are|your (answer|fix|change|code) is|the (answer|fix|change|output|result) is) (still |just |completely |totally |all |simply |clearly |definitely )?(wrong|incorrect|not (right|correct|it|true|what i (asked|wanted|meant|said))|false|broken|a lie|made up)\b`,
	`\bnot what i (asked|wanted|meant|said)\b`,
	`\bnot true\b`,
	`\byou (lied|made that up|hallucinated)\b`,
	// it doesn't work, the fix didn't help, the tests don't pass
	`\b(it|this|that|they|these|those|nothing|fix|change|script|command|code|app|page|build|tests?|function|feature|solution) (still |also |now |even )?(doesn'?t|does not|didn'?t|did not|don'?t|do not|isn'?t|is not|aren'?t|are not|won'?t|will not|can'?t|cannot|hasn'?t|has not|haven'?t) (work|working|compile|compiling|build|building|pass|passing|run|running|load|start|fix|fixed|help|solve|solved|change anything)\b`,
	// still fails, still the same, fails again
	`\bstill (fails?|failing|failed|broken|breaks|wrong|red|crash(es|ing)?|erroring|errors?|panics?|panicking|hangs?|not (working|fixed|passing|compiling|right)|doesn'?t|does not|don'?t|isn'?t|aren'?t|won'?t|the same|same|getting|get|seeing|see|there|happens|happening|throws?|returns? (the )?(wrong|an error|\d))\b`,
	`\b(fails?|failing|failed|broken|crash(es|ed)?|same error) (again|as before|like before)\b`,
	`\b(you|your (change|fix|edit|commit|code)|the (change|fix|edit)) (just |also |completely )?(broke|has broken|have broken|broken|deleted|removed|overwrote|missed|forgot|ignored|skipped)\b`,
	// you didn't run the tests
	`\byou (didn'?t|did not|never|haven'?t|have not|forgot to|failed to|skipped|ignored) (even |actually |really )?(run|ran|test|tested|check|checked|verify|verified|fix|fixed|read|look|looked|try|tried|build|built|compile|compiled|change|changed|update|updated|save|saved|execute|executed)\b`,
	`\bdid you (even|actually|really) (run|test|check|verify|try|read|look|build|compile)\b`,
	// revert that
	`\b(revert|undo|roll ?back|put back|restore) (that|this|it|your|those|these|what you|everything|all|the (last |previous |whole )?(change|edit|fix)e?s?|the last commit)\b`,
	`\b(wrong|incorrect) (file|function|method|branch|answer|approach|fix|place|directory|folder|module|test|one|output|result|command|line|variable|version|path|repo)\b`,
	`\bnothing (changed|works|happened|is fixed)\b`,
	`\b(is|are|it'?s|that'?s|still) not (fixed|working|correct|right|done|passing)\b`,
	`\b(isn'?t|aren'?t|wasn'?t|weren'?t) (fixed|working|correct|right|passing)\b`,
	`\bmade (it|things) worse\b`,
	`\b(it'?s|that'?s|this is|it is|now it'?s) (even |now |much )?worse\b`,
	`\byou only (ran|run|tested|checked|fixed|changed|looked at)\b`,
	`\b(get|getting|got|see|seeing|have|having) the same (error|failure|problem|issue|result|output)\b`,
	`^(they|it|that|this|those|these) (still )?(don'?t|doesn'?t|didn'?t|isn'?t|aren'?t|do not|does not|did not)$`,
	`\b(go|put it|change it|switch) back to (the )?((previous|old|original|last|earlier) (version|one|code|state|behaviou?r)|what it was|how it was)\b`,
}

// correctionAnyNeeds are the words of correctionAnyRE's alternatives, in
// its order: every match of an alternative holds one word of each of its
// groups, so a clause that holds no alternative's words has no match and
// the expression (long: it costs on every clause) is not run.
// TestCorrectionPrefilter holds them to the pattern.
var correctionAnyNeeds = [][][]string{
	{{"wrong", "incorrect", "not", "false", "broken", "lie", "made up"}},
	{{"not what i"}},
	{{"not true"}},
	{{"lied", "made that up", "hallucinated"}},
	{{"n't", "nt ", "not", "cannot"}, {"work", "compil", "build", "pass", "run", "load", "start", "fix", "help", "solv", "change anything"}},
	{{"still "}},
	{{"again", "before"}},
	{{"broke", "deleted", "removed", "overwrote", "missed", "forgot", "ignored", "skipped"}},
	{{"you "}, {"n't", "nt ", "not", "never", "forgot", "failed", "skipped", "ignored"}},
	{{"did you"}},
	{{"revert", "undo", "roll", "put back", "restore"}},
	{{"wrong", "incorrect"}},
	{{"nothing "}},
	{{"not"}},
	{{"n't", "nt "}, {"fixed", "working", "correct", "right", "passing"}},
	{{"worse"}},
	{{"worse"}},
	{{"you only"}},
	{{"the same"}},
	{{"don", "doesn", "didn", "isn", "aren", "not"}},
	{{"back to"}},
}

// mayCorrect reports whether clause c holds the words of one of
// correctionAnyRE's alternatives.
func mayCorrect(c string) bool {
	for _, alt := range correctionAnyNeeds {
		all := true
		for _, words := range alt {
			if !containsWord(c, words) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

func containsWord(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// Corrections that are reports of a failure ("the tests fail", "that
// broke the build", "TestSum fails"): not in a question, where they ask
// about a failure more often than they report one ("why does the
// checkout test fail?").
var correctionReportRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`\b(tests?|build|ci|pipeline|it|that|this|compilation|linter|lint|app|server|page|check|checks|go test|pytest|npm test) (still |now |also |just )?(fails?|failed|failing|is failing|are failing|breaks|broke|is broken|are broken|is red|are red|crash(es|ed)?|panic(s|ked)?|won'?t (compile|build|run|start)|errors? out)\b`,
		`\btest\w* (still |now |also )?(fails?|failed|failing)\b`,
	}, "|"))
})

// Words before a match that make it not a verdict: a negation right
// before it, or a condition or an instruction anywhere before it in the
// clause.
var (
	negatedRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(not|never|don'?t|do not|no need to|without)\s*$`) })
	conditionalRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(if|when|whenever|whether|unless|until|in case|make sure|ensure|check that|verify that|so that|should|shouldn'?t|could|would|might|expect|expected|test that|a test|tests? (that|where|which)|what if|ask|asks|say|says|said|print|prints|message|error message|log|logs|claim|claims|claimed|told me|think|thought|supposedly|supposed to|make|makes|get|let)\b`)
	})
)

func guarded(c string, at int) bool {
	before := c[:at]
	return negatedRE().MatchString(before) || conditionalRE().MatchString(before)
}

func correctionClause(c string, first bool) bool {
	if first && correctionStartRE().MatchString(c) && !noAsPolite(c) {
		return true
	}
	if mayCorrect(c) {
		for _, m := range correctionAnyRE().FindAllStringIndex(c, -1) {
			if !guarded(c, m[0]) {
				return true
			}
		}
	}
	if strings.HasSuffix(c, "?") {
		return false
	}
	for _, m := range correctionReportRE().FindAllStringIndex(c, -1) {
		if !guarded(c, m[0]) {
			return true
		}
	}
	return false
}

// noAsPolite is a leading "no" that refuses nothing ("no problem", "no
// worries"), or a leading word that starts a request ("still, add a
// test").
func noAsPolite(c string) bool { return politeRE().MatchString(c) }

var politeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(no (problem|worries|rush|need|thanks|way)\b|still,|still (need|want|have to|add|use|keep|make|do|can|could|should)\b)`)
})

// Acceptances said at the very start of the prompt.
var acceptanceStartRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(thanks|thank you|thx|ty|cheers|perfect|great|excellent|awesome|nice|amazing|brilliant|lgtm|looks good|looks great|sounds good|good job|great job|nice work|good work|well done|works|it works|that works|that worked|this works|all good|exactly|correct|yes,? (that'?s|this is|it'?s) (it|right|correct|perfect|what i wanted)|ship it|approved|confirmed|love it|beautiful|spot on|nailed it|good|cool|sweet|all green|that'?s it|ok,? (thanks|great|perfect|works)|okay,? (thanks|great|perfect|works)|yes+ ?!+|yay|👍|🎉|✅|🙏)(\b|\s|!|$)`)
})

// Acceptances said anywhere in a clause.
var acceptanceAnyRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(strings.Join([]string{
		`\b(it|that|this|everything|all|the fix) (now )?(works|worked|is working|passes|passed|did it|did the trick)( now| perfectly| great| fine)?\b`,
		`\b(tests?|build|ci|checks?) (now |all )?(pass|passes|passed|are passing|is passing|are green|is green)\b`,
		`\bworks (now|great|perfectly|fine|like a charm)\b`,
		`\b(that|this|you) (fixed|solved) (it|the (problem|issue|bug))\b`,
		`\bno longer (fails?|failing|crash(es)?|breaks?|errors?)\b`,
		`\blgtm\b`,
		`\blooks (good|great|right|correct) (to me|now)\b`,
	}, "|"))
})

func acceptanceClause(c string, first bool) bool {
	if first && acceptanceStartRE().MatchString(c) && !strings.HasSuffix(c, "?") {
		return true
	}
	if strings.HasSuffix(c, "?") {
		return false // a question about it is not an acceptance
	}
	for _, m := range acceptanceAnyRE().FindAllStringIndex(c, -1) {
		if !guarded(c, m[0]) {
			return true
		}
	}
	return false
}
