package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"unicode"
)

// Input is what the checks look at.
type Input struct {
	// Output is the execution's final answer; HasOutput false when it
	// gave none (the output checks then score 0 and say so).
	Output    string
	HasOutput bool
	// Project is the project directory after the execution, rooted at the
	// project (an os.Root's FS); nil when the execution named no project
	// (the file checks then score 0 and say so).
	Project fs.FS
	// ProjectError, when set, is why the project could not be opened
	// (the file checks say it).
	ProjectError error
}

// Outcome is one check's result.
type Outcome struct {
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Score  float64 `json:"score"`
	Passed bool    `json:"passed"`
	// Detail says what was measured, or why the check could not run
	// (then Error is set and the score is 0).
	Detail string `json:"detail"`
	Error  bool   `json:"error,omitempty"`
}

// Result is the outcome of a skill's checks.
type Result struct {
	Outcomes []Outcome `json:"outcomes"`
	// Score is the mean of the outcomes' scores, in [0, 1].
	Score  float64 `json:"score"`
	Passed int     `json:"passed"`
	// Detail reads "2/3 checks passed: …", naming every check.
	Detail string `json:"detail"`
}

// Run runs every check on in. With no checks the result is empty (Score
// 0, no outcomes): the caller leaves the signal absent. A check that
// cannot run (no output, a missing file, output that is not JSON) scores
// 0 for itself only and says why.
func Run(cs []*Check, in Input) Result {
	var r Result
	if len(cs) == 0 {
		return r
	}
	sum := 0.0
	parts := make([]string, 0, len(cs))
	for _, c := range cs {
		o := c.Run(in)
		r.Outcomes = append(r.Outcomes, o)
		sum += o.Score
		if o.Passed {
			r.Passed++
		}
		mark := "passed"
		if !o.Passed {
			mark = "failed"
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", o.Name, mark, o.Detail))
	}
	r.Score = sum / float64(len(cs))
	r.Detail = fmt.Sprintf("%d/%d checks passed: %s", r.Passed, len(cs), strings.Join(parts, "; "))
	return r
}

// Run runs one check.
func (c *Check) Run(in Input) Outcome {
	o := Outcome{Name: c.Name, Type: c.Type}
	fail := func(format string, a ...any) Outcome {
		o.Score, o.Passed, o.Error = 0, false, true
		o.Detail = fmt.Sprintf(format, a...)
		return o
	}
	switch c.Type {
	case FileExists, FileContains:
		if in.ProjectError != nil {
			return fail("cannot open the project: %v", in.ProjectError)
		}
		if in.Project == nil {
			return fail("no project directory to look in")
		}
		return c.runFile(o, in.Project, fail)
	}
	if !in.HasOutput {
		return fail("no final output")
	}
	out := in.Output
	switch c.Type {
	case ExactMatch:
		a, b := out, c.expected
		if c.strip {
			a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		}
		if !c.caseSensitive {
			a, b = strings.ToLower(a), strings.ToLower(b)
		}
		if a == b {
			o.Score, o.Passed, o.Detail = 1, true, "equal"
		} else {
			o.Detail = "differs from the expected text"
		}
	case Levenshtein:
		o.Score = Similarity(strings.TrimSpace(out), strings.TrimSpace(c.expected))
		o.Passed = o.Score >= c.threshold
		o.Detail = fmt.Sprintf("similarity %.2f, threshold %.2f", o.Score, c.threshold)
	case NumericDiff:
		n, ok := FirstNumber(out)
		if !ok {
			return fail("no number in the output")
		}
		diff := math.Abs(n - c.expectedNum)
		scale := math.Abs(c.expectedNum)
		var rel float64
		switch {
		case diff == 0:
			rel = 0
		case scale == 0:
			rel = diff // relative to nothing: the absolute difference
		default:
			rel = diff / scale
		}
		o.Passed = rel <= c.tolerance
		if o.Passed {
			o.Score = 1
		} else {
			o.Score = clamp01(1 - rel)
		}
		o.Detail = fmt.Sprintf("%s vs %s, off by %.2f%% (tolerance %.2f%%)", fmtNum(n), fmtNum(c.expectedNum), rel*100, c.tolerance*100)
	case JSONValidity:
		if _, where, ok := ExtractJSON(out); ok {
			o.Score, o.Passed, o.Detail = 1, true, "valid JSON ("+where+")"
		} else {
			o.Detail = "not valid JSON"
		}
	case JSONDiff:
		v, where, ok := ExtractJSON(out)
		if !ok {
			return fail("the output is not JSON")
		}
		o.Score = JSONSimilarity(c.expectedJSON, v)
		o.Passed = o.Score >= c.threshold
		o.Detail = fmt.Sprintf("similarity %.2f, threshold %.2f (%s)", o.Score, c.threshold, where)
	case ListContains:
		found, missing := c.listMatches(out)
		o.Score = float64(found) / float64(len(c.items))
		o.Passed = o.Score >= c.threshold
		o.Detail = fmt.Sprintf("%d/%d items, threshold %.2f", found, len(c.items), c.threshold)
		if len(missing) > 0 {
			o.Detail += "; missing " + quoteList(missing)
		}
	case Regex:
		if c.re.MatchString(out) {
			o.Score, o.Passed, o.Detail = 1, true, "matches"
		} else {
			o.Detail = "no match for " + c.re.String()
		}
	default:
		return fail("unknown check type %q", c.Type)
	}
	return o
}

func (c *Check) runFile(o Outcome, root fs.FS, fail func(string, ...any) Outcome) Outcome {
	if c.Type == FileExists {
		if _, err := fs.Stat(root, c.path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				o.Detail = c.path + " does not exist"
				return o
			}
			return fail("%s: %v", c.path, err)
		}
		o.Score, o.Passed, o.Detail = 1, true, c.path+" exists"
		return o
	}
	f, err := root.Open(c.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail("%s does not exist", c.path)
		}
		return fail("%s: %v", c.path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes))
	if err != nil {
		return fail("%s: %v", c.path, err)
	}
	text := string(b)
	met := 0
	var missed []string
	for _, s := range c.contains {
		if strings.Contains(text, s) {
			met++
		} else {
			missed = append(missed, "lacks "+fmt.Sprintf("%q", s))
		}
	}
	for _, s := range c.not {
		if !strings.Contains(text, s) {
			met++
		} else {
			missed = append(missed, "has "+fmt.Sprintf("%q", s))
		}
	}
	n := len(c.contains) + len(c.not)
	o.Score = float64(met) / float64(n)
	o.Passed = met == n
	o.Detail = fmt.Sprintf("%s: %d/%d conditions", c.path, met, n)
	if len(missed) > 0 {
		o.Detail += "; " + strings.Join(missed, ", ")
	}
	return o
}

// listMatches counts the items the text mentions: as a substring,
// case-insensitively, or (fuzzy) as a run of as many words as the item
// has whose similarity to it is at least the fuzzy threshold.
func (c *Check) listMatches(text string) (int, []string) {
	low := strings.ToLower(text)
	words := strings.FieldsFunc(low, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '\''
	})
	found := 0
	var missing []string
	for _, it := range c.items {
		item := strings.ToLower(strings.TrimSpace(it))
		if strings.Contains(low, item) || c.fuzzy && fuzzyIn(words, item, c.fuzzyThreshold) {
			found++
		} else {
			missing = append(missing, it)
		}
	}
	return found, missing
}

// maxFuzzyWords bounds the words compared by a fuzzy match, so a long
// output costs at most this many comparisons per item.
const maxFuzzyWords = 5000

func fuzzyIn(words []string, item string, threshold float64) bool {
	k := len(strings.Fields(item))
	if k == 0 {
		return false
	}
	if len(words) > maxFuzzyWords {
		words = words[:maxFuzzyWords]
	}
	for i := 0; i+k <= len(words); i++ {
		if Similarity(strings.Join(words[i:i+k], " "), item) >= threshold {
			return true
		}
	}
	return false
}

func quoteList(a []string) string {
	q := make([]string, len(a))
	for i, s := range a {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

func fmtNum(f float64) string {
	return fmt.Sprintf("%g", f)
}

func clamp01(f float64) float64 {
	switch {
	case f < 0 || math.IsNaN(f):
		return 0
	case f > 1:
		return 1
	}
	return f
}

// unmarshalJSON decodes one JSON value, refusing trailing data.
func unmarshalJSON(s string) (any, bool) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, false
	}
	return normalize(v), true
}

// normalize turns json.Number into float64 so values compare by value.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}
