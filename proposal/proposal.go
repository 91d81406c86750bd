// Package proposal says whether a proposed text of a prompt file may be
// written: the checks of its content against the baseline's (Check) and the
// limits on how often a skill may change (CheckLimits), each refusal a
// RefusalError naming the rule and the numbers; the mutation engine returns
// the same error for every action it refuses (pure).
package proposal

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/promptfile"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	yaml "go.yaml.in/yaml/v3"
)

// Options are the checks and limits on proposals from a mutator.
type Options struct {
	// MinRatio and MaxRatio bound the proposal's length against the
	// baseline's, in bytes: 0.5 and 2.
	MinRatio, MaxRatio float64
	// Dangerous are refused phrases, matched case-insensitively with runs
	// of white space treated as one space, as whole words (so "rm -rf /"
	// does not match "rm -rf /tmp/x"). A phrase the baseline already holds
	// as often is allowed: only introducing one is refused.
	Dangerous []string
	// PerDay is the most proposals per skill in any 24 hours: 10.
	PerDay int
	// MinExecutions since the file last changed: 3.
	MinExecutions int
	// StableMean, StableVariance and StableWindow: no proposal while the
	// mean of the last StableWindow scores is above StableMean and their
	// (sample) variance below StableVariance (85, 5, 3), as SEPA's
	// protocol says: a stable skill is left alone.
	StableMean     float64
	StableVariance float64
	StableWindow   int
	// GateCases, when set, are the eval cases the eval gate runs: the
	// ones `sepad evolve` held out of its request, so that the gate judges
	// a mutator's text on cases it never saw (docs/evolve.md); nil runs
	// the whole suite.
	GateCases []string
}

// DefaultOptions are the protocol's checks and limits.
func DefaultOptions() Options {
	return Options{MinRatio: 0.5, MaxRatio: 2, PerDay: 10, MinExecutions: 3, StableMean: 85, StableVariance: 5, StableWindow: 3,
		Dangerous: []string{
			"rm -rf /", "rm -rf /*", "rm -fr /", "rm -rf ~", "rm -rf ~/", "rm -rf $HOME", "rm -rf --no-preserve-root",
			"mkfs.", "dd if=/dev/zero of=/dev/", "chmod -R 777 /", ":(){ :|:& };:",
			"ignore all previous instructions", "ignore previous instructions", "ignore all prior instructions",
			"disregard all previous instructions", "disregard previous instructions", "disregard all prior instructions",
			"--dangerously-skip-permissions", "--no-verify", "git push --force", "git push -f",
		}}
}

// History is what the limits look at.
type History struct {
	// Recent are the times of this skill's earlier proposals.
	Recent []time.Time
	// SinceChange counts the skill's executions since its file last
	// changed.
	SinceChange int
	// Last3 are the skill's newest scores, newest first (at least
	// StableWindow of them for the stability rule to apply).
	Last3 []float64
	// Now is the time of the proposal.
	Now time.Time
}

// Proposal rules, as named by a RefusalError.
const (
	RuleEmpty       = "empty"
	RuleNotText     = "not_text"
	RuleUnchanged   = "unchanged"
	RuleLength      = "length"
	RuleFrontmatter = "frontmatter"
	RuleHeadings    = "headings"
	RuleDangerous   = "dangerous_pattern"
	RulePowers      = "powers"
	RuleRateLimit   = "rate_limit"
	RuleTooSoon     = "too_soon"
	RuleStable      = "stable"
)

// ErrRefused is wrapped by every refusal of a proposal or manual action.
var ErrRefused = errors.New("refused")

// RefusalError says which rule refused a proposal, with the numbers.
type RefusalError struct {
	Rule   string
	Detail string
}

// Error names the rule and gives the numbers, e.g. "refused by too_soon: 2
// executions since the last change (need 3, 1 more)".
func (e *RefusalError) Error() string { return fmt.Sprintf("refused by %s: %s", e.Rule, e.Detail) }

// Unwrap makes every refusal match ErrRefused.
func (e *RefusalError) Unwrap() error { return ErrRefused }

func refuse(rule, format string, args ...any) error {
	return &RefusalError{Rule: rule, Detail: fmt.Sprintf(format, args...)}
}

// Check checks a proposed text against the baseline's text (nil
// when the skill has no baseline: the comparisons are skipped) and the
// limits. It returns nil or a *RefusalError naming the rule and the
// numbers. Content is checked before limits, so a mutator learns what to
// fix first.
func Check(baseline, proposed []byte, h History, o Options) error {
	if len(bytes.TrimSpace(proposed)) == 0 {
		return refuse(RuleEmpty, "the proposed text is empty (%d bytes of white space)", len(proposed))
	}
	if !utf8.Valid(proposed) || bytes.IndexByte(proposed, 0) >= 0 {
		return refuse(RuleNotText, "the proposed text is not UTF-8 text (%d bytes)", len(proposed))
	}
	if len(baseline) > 0 {
		if bytes.Equal(baseline, proposed) {
			return refuse(RuleUnchanged, "the proposed text is the baseline's, byte for byte (%d bytes, version %s)", len(proposed), promptfile.Hash(proposed))
		}
		ratio := float64(len(proposed)) / float64(len(baseline))
		if ratio < o.MinRatio || (o.MaxRatio > 0 && ratio > o.MaxRatio) {
			return refuse(RuleLength, "%d bytes is %.2f× the baseline's %d (allowed %.2g× to %.2g×, i.e. %d to %d bytes)",
				len(proposed), ratio, len(baseline), o.MinRatio, o.MaxRatio,
				int(o.MinRatio*float64(len(baseline))+0.999), int(o.MaxRatio*float64(len(baseline))))
		}
		if err := checkFrontmatter(baseline, proposed); err != nil {
			return err
		}
		if err := checkHeadings(baseline, proposed); err != nil {
			return err
		}
	}
	if err := checkPowers(baseline, proposed); err != nil {
		return err
	}
	if err := checkDangerous(baseline, proposed, o.Dangerous); err != nil {
		return err
	}
	return CheckLimits(h, o)
}

// CheckLimits applies the proposal limits alone (rate_limit, too_soon,
// stable): what a mutator can know before it writes a text.
func CheckLimits(h History, o Options) error {
	if o.PerDay > 0 {
		var inDay []time.Time
		for _, t := range h.Recent {
			if age := h.Now.Sub(t); age >= 0 && age < 24*time.Hour {
				inDay = append(inDay, t)
			}
		}
		if len(inDay) >= o.PerDay {
			oldest := inDay[0]
			for _, t := range inDay {
				if t.Before(oldest) {
					oldest = t
				}
			}
			return refuse(RuleRateLimit, "%s for this skill in the last 24 hours (limit %d); the next is allowed at %s",
				plural(len(inDay), "proposal", "proposals"), o.PerDay, oldest.Add(24*time.Hour).UTC().Format(time.RFC3339))
		}
	}
	if h.SinceChange < o.MinExecutions {
		return refuse(RuleTooSoon, "%s since the last change (need %d, %d more)", plural(h.SinceChange, "execution", "executions"), o.MinExecutions, o.MinExecutions-h.SinceChange)
	}
	if w := o.StableWindow; w > 1 && len(h.Last3) >= w {
		m, sd := decide.MeanSD(h.Last3[:w])
		if v := sd * sd; m > o.StableMean && v < o.StableVariance {
			return refuse(RuleStable, "the skill is stable: mean %.2f > %.2g and variance %.2f < %.2g over the last %d executions (%s)",
				m, o.StableMean, v, o.StableVariance, w, joinScores(h.Last3[:w]))
		}
	}
	return nil
}

func joinScores(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, ", ")
}

// splitFrontmatter returns a leading YAML front matter block (between
// "---" lines at the very top) and the body after it. Claude Code reads a
// skill's name and description there; goldmark, which knows nothing of it,
// would take its closing "---" for a heading underline.
func splitFrontmatter(src []byte) (fm []byte, body []byte, ok bool) {
	return evals.SplitFrontmatter(src)
}

// checkFrontmatter keeps the baseline's front matter usable: still there,
// still YAML, every key kept, and the same name (Claude Code finds the
// skill by it).
func checkFrontmatter(baseline, proposed []byte) error {
	bfm, _, ok := splitFrontmatter(baseline)
	if !ok {
		return nil
	}
	bm, err := parseYAML(bfm)
	if err != nil || len(bm) == 0 {
		return nil // the baseline's own front matter is broken or empty: nothing to keep
	}
	pfm, _, ok := splitFrontmatter(proposed)
	if !ok {
		return refuse(RuleFrontmatter, "the baseline's front matter (%d keys) is missing", len(bm))
	}
	pm, err := parseYAML(pfm)
	if err != nil {
		return refuse(RuleFrontmatter, "the front matter is not a valid YAML mapping: %v", firstLine(err.Error()))
	}
	var missing []string
	for k := range bm {
		if _, ok := pm[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return refuse(RuleFrontmatter, "the front matter lost %d of the baseline's %d keys: %s", len(missing), len(bm), strings.Join(missing, ", "))
	}
	if bn, ok := bm["name"]; ok && fmt.Sprint(bn) != fmt.Sprint(pm["name"]) {
		return refuse(RuleFrontmatter, "the front matter renames the skill from %q to %q", fmt.Sprint(bn), fmt.Sprint(pm["name"]))
	}
	return nil
}

// parseYAML decodes a front matter mapping; a panic in the decoder on
// hostile input becomes an error.
func parseYAML(src []byte) (m map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("YAML decoder failed: %v", r)
		}
	}()
	err = yaml.Unmarshal(src, &m)
	return m, err
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// heading is a markdown heading: its level and its text with white space
// collapsed.
type heading struct {
	level int
	text  string
}

func (h heading) String() string { return strings.Repeat("#", h.level) + " " + h.text }

// checkPowers refuses a proposal that claims a power its baseline does
// not (docs/security.md, "What a mutator may not change"): a new or
// changed hooks, allowed-tools, tools, model, permission, shell or agent
// key of the front matter, or a shell line (!`cmd`) the baseline does not
// hold as often. Session text reaches a mutator, so a prompt injection
// could otherwise end in a prompt file that runs commands in every later
// session. A person who wants such a change makes it in the file.
func checkPowers(baseline, proposed []byte) error {
	added := evals.PowersOf(proposed).Added(evals.PowersOf(baseline))
	if len(added) == 0 {
		return nil
	}
	return refuse(RulePowers, "the text %s: a mutator may change what the skill says, not what it may run (edit the file yourself if it should)", strings.Join(added, "; "))
}

// checkHeadings refuses a proposal that drops one of the baseline's
// headings (same level and text; a heading the baseline has twice must be
// there twice). New headings and a new order are allowed.
func checkHeadings(baseline, proposed []byte) error {
	bh, ph := headings(baseline), headings(proposed)
	have := map[heading]int{}
	for _, h := range ph {
		have[h]++
	}
	var missing []string
	for _, h := range bh {
		if have[h] > 0 {
			have[h]--
			continue
		}
		missing = append(missing, fmt.Sprintf("%q", h.String()))
	}
	if len(missing) > 0 {
		return refuse(RuleHeadings, "%d of the baseline's %d headings are missing: %s", len(missing), len(bh), strings.Join(missing, ", "))
	}
	return nil
}

var mdParser = sync.OnceValue(func() goldmark.Markdown { return goldmark.New() })

// headings lists a markdown text's headings, from goldmark's syntax tree
// (a '#' line in a code block is not a heading; a setext heading is), after
// the front matter.
func headings(src []byte) []heading {
	_, body, _ := splitFrontmatter(src)
	doc := mdParser().Parser().Parse(text.NewReader(body))
	var out []heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !ok || !entering {
			return ast.WalkContinue, nil
		}
		var b strings.Builder
		inlineText(h, body, &b)
		out = append(out, heading{level: h.Level, text: strings.Join(strings.Fields(b.String()), " ")})
		return ast.WalkSkipChildren, nil
	})
	return out
}

// inlineText appends the text of n's inline descendants: plain text, code
// spans, emphasis and link text alike.
func inlineText(n ast.Node, src []byte, b *strings.Builder) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.AutoLink:
			b.Write(t.URL(src))
		case *ast.RawHTML:
			for i := 0; i < t.Segments.Len(); i++ {
				s := t.Segments.At(i)
				b.Write(s.Value(src))
			}
		default:
			inlineText(c, src, b)
		}
	}
}

// checkDangerous refuses a proposal that holds a dangerous phrase more
// often than the baseline does.
func checkDangerous(baseline, proposed []byte, patterns []string) error {
	p, b := normalise(string(proposed)), normalise(string(baseline))
	for _, pat := range patterns {
		np := normalise(pat)
		if np == "" {
			continue
		}
		if n := countPhrase(p, np); n > countPhrase(b, np) {
			return refuse(RuleDangerous, "contains %q %s, the baseline %s", pat, times(n), times(countPhrase(b, np)))
		}
	}
	return nil
}

// times words a count of occurrences: "never", "once", "3 times".
func times(n int) string {
	switch n {
	case 0:
		return "never"
	case 1:
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// normalise lower-cases s and turns every run of white space into one
// space, so that case and line breaks cannot hide a phrase.
func normalise(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// countPhrase counts the occurrences of phrase in s that stand as whole
// words: not glued to a word character before or after (for a phrase that
// ends in a path character such as '/', a following path character counts
// as glued, so "rm -rf /" does not match "rm -rf /tmp/x").
func countPhrase(s, phrase string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(s[i:], phrase)
		if j < 0 {
			return n
		}
		start, end := i+j, i+j+len(phrase)
		if glued(s, start, end, phrase) {
			i = start + 1
			continue
		}
		n++
		i = end
	}
}

func glued(s string, start, end int, phrase string) bool {
	first, _ := utf8.DecodeRuneInString(phrase)
	last, _ := utf8.DecodeLastRuneInString(phrase)
	if start > 0 && isWord(first) {
		if r, _ := utf8.DecodeLastRuneInString(s[:start]); isWord(r) {
			return true
		}
	}
	if end < len(s) {
		r, _ := utf8.DecodeRuneInString(s[end:])
		// A word-ending phrase continued by a word, a longer flag or a
		// path ("--force-with-lease", "$HOME/.cache") is another phrase.
		if isWord(last) && (isWord(r) || r == '-' || r == '/') {
			return true
		}
		if isPath(last) && (isWord(r) || r == '.' || r == '-' || r == '/' || r == '~' || r == '$') {
			return true
		}
	}
	return false
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }
func isPath(r rune) bool { return r == '/' || r == '~' }

// plural is "1 execution", "3 executions".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
