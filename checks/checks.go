// Package checks holds a skill's own checks: scorers of its final output
// (exact_match, levenshtein, numeric_diff, json_validity, json_diff,
// list_contains), a regex, and two checks of the project after
// the execution (file_exists, file_contains). Each scores the execution in
// [0, 1] and passes or fails against its threshold; their mean is the
// optional fitness signal `checks` (docs/rubric.md).
//
// A definition is compiled once (Compile: a bad one is refused with the
// field at fault, so the configuration can name file, line and key), then
// run on an execution's final output and its project. Run does no I/O of
// its own: the project is read through the fs.FS it is given (the caller
// passes an os.Root's FS, confined to the project).
package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"regexp"
	"strings"
)

// Types of check.
const (
	ExactMatch   = "exact_match"
	Levenshtein  = "levenshtein"
	NumericDiff  = "numeric_diff"
	JSONValidity = "json_validity"
	JSONDiff     = "json_diff"
	ListContains = "list_contains"
	Regex        = "regex"
	FileExists   = "file_exists"
	FileContains = "file_contains"
)

// Types lists every type, in documentation order.
var Types = []string{ExactMatch, Levenshtein, NumericDiff, JSONValidity, JSONDiff, ListContains, Regex, FileExists, FileContains}

// Default thresholds (Keystone's examples).
const (
	DefaultLevenshteinThreshold  = 0.85
	DefaultNumericTolerance      = 0.01
	DefaultJSONDiffThreshold     = 0.9
	DefaultListContainsThreshold = 0.7
	DefaultFuzzyThreshold        = 0.75
)

// MaxFileBytes bounds what file_contains reads of a file.
const MaxFileBytes = 4 << 20

// Def is one check as written in the configuration (skills.NAME.checks).
// The yaml tags are the configuration's keys; fields a type does not use
// must be left out.
type Def struct {
	// Type is one of Types.
	Type string `yaml:"type"`
	// Name is shown in details; default the type.
	Name string `yaml:"name"`
	// Expected: a string (exact_match, levenshtein), a number
	// (numeric_diff), any JSON value (json_diff), a list of strings
	// (list_contains).
	Expected any `yaml:"expected"`
	// CaseSensitive (exact_match, default true).
	CaseSensitive *bool `yaml:"case_sensitive"`
	// Strip trims white space around both texts (exact_match, default true).
	Strip *bool `yaml:"strip"`
	// Threshold is the score needed to pass (levenshtein, json_diff,
	// list_contains).
	Threshold *float64 `yaml:"threshold"`
	// Tolerance is numeric_diff's relative tolerance (0.01: within 1%).
	Tolerance *float64 `yaml:"tolerance"`
	// Fuzzy lets list_contains match an item by Levenshtein similarity of
	// at least FuzzyThreshold (default true, 0.75).
	Fuzzy          *bool    `yaml:"fuzzy"`
	FuzzyThreshold *float64 `yaml:"fuzzy_threshold"`
	// Pattern is regex's RE2 expression.
	Pattern string `yaml:"pattern"`
	// Path is file_exists' and file_contains' file, relative to the
	// project and inside it.
	Path string `yaml:"path"`
	// Contains and NotContains (file_contains): a string or a list of
	// strings the file must hold, or must not.
	Contains    any `yaml:"contains"`
	NotContains any `yaml:"not_contains"`
}

// FieldError is a definition refused by Compile: Field is the key at
// fault ("expected", "threshold", or "" for the check as a whole).
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

// ErrInvalid is wrapped by every FieldError.
var ErrInvalid = errors.New("invalid check")

// Unwrap lets callers test errors.Is(err, ErrInvalid).
func (e *FieldError) Unwrap() error { return ErrInvalid }

func bad(field, format string, a ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// Check is a compiled definition.
type Check struct {
	Type, Name     string
	expected       string
	expectedNum    float64
	expectedJSON   any
	items          []string
	caseSensitive  bool
	strip          bool
	threshold      float64
	tolerance      float64
	fuzzy          bool
	fuzzyThreshold float64
	re             *regexp.Regexp
	path           string
	contains, not  []string
}

// uses lists the optional fields each type reads; any other one set is
// refused, so a typo'd intent ("threshold" on exact_match) is not ignored.
var uses = map[string][]string{
	ExactMatch:   {"expected", "case_sensitive", "strip"},
	Levenshtein:  {"expected", "threshold"},
	NumericDiff:  {"expected", "tolerance"},
	JSONValidity: {},
	JSONDiff:     {"expected", "threshold"},
	ListContains: {"expected", "threshold", "fuzzy", "fuzzy_threshold"},
	Regex:        {"pattern"},
	FileExists:   {"path"},
	FileContains: {"path", "contains", "not_contains"},
}

// set lists the optional fields d sets.
func (d *Def) set() []string {
	var out []string
	add := func(ok bool, k string) {
		if ok {
			out = append(out, k)
		}
	}
	add(d.Expected != nil, "expected")
	add(d.CaseSensitive != nil, "case_sensitive")
	add(d.Strip != nil, "strip")
	add(d.Threshold != nil, "threshold")
	add(d.Tolerance != nil, "tolerance")
	add(d.Fuzzy != nil, "fuzzy")
	add(d.FuzzyThreshold != nil, "fuzzy_threshold")
	add(d.Pattern != "", "pattern")
	add(d.Path != "", "path")
	add(d.Contains != nil, "contains")
	add(d.NotContains != nil, "not_contains")
	return out
}

// Compile checks a definition and returns the check, or a *FieldError.
func Compile(d Def) (*Check, error) {
	allowed, ok := uses[d.Type]
	if !ok {
		if d.Type == "" {
			return nil, bad("type", "missing (one of %s)", strings.Join(Types, ", "))
		}
		return nil, bad("type", "%q is not a check type (one of %s)", d.Type, strings.Join(Types, ", "))
	}
	for _, f := range d.set() {
		found := false
		for _, a := range allowed {
			found = found || a == f
		}
		if !found {
			return nil, bad(f, "%s does not use %s (it uses: %s)", d.Type, f, usesList(allowed))
		}
	}
	c := &Check{Type: d.Type, Name: d.Name, caseSensitive: true, strip: true, fuzzy: true, fuzzyThreshold: DefaultFuzzyThreshold}
	if c.Name == "" {
		c.Name = d.Type
	}
	if d.CaseSensitive != nil {
		c.caseSensitive = *d.CaseSensitive
	}
	if d.Strip != nil {
		c.strip = *d.Strip
	}
	if d.Fuzzy != nil {
		c.fuzzy = *d.Fuzzy
	}
	frac := func(field string, p *float64, def float64) (float64, error) {
		if p == nil {
			return def, nil
		}
		if !(*p >= 0 && *p <= 1) {
			return 0, bad(field, "must be in [0, 1], got %v", *p)
		}
		return *p, nil
	}
	var err error
	switch d.Type {
	case ExactMatch, Levenshtein:
		s, ok := d.Expected.(string)
		if !ok {
			return nil, bad("expected", "%s needs expected: a string", d.Type)
		}
		c.expected = s
		if d.Type == Levenshtein {
			c.threshold, err = frac("threshold", d.Threshold, DefaultLevenshteinThreshold)
		}
	case NumericDiff:
		n, ok := number(d.Expected)
		if !ok {
			return nil, bad("expected", "numeric_diff needs expected: a number")
		}
		c.expectedNum = n
		if c.tolerance = DefaultNumericTolerance; d.Tolerance != nil {
			if !(*d.Tolerance >= 0) || math.IsInf(*d.Tolerance, 0) {
				return nil, bad("tolerance", "must be a relative tolerance of 0 or more (0.01: within 1%%), got %v", *d.Tolerance)
			}
			c.tolerance = *d.Tolerance
		}
	case JSONDiff:
		if d.Expected == nil {
			return nil, bad("expected", "json_diff needs expected: a JSON value (usually a mapping)")
		}
		b, err := json.Marshal(d.Expected)
		if err != nil {
			return nil, bad("expected", "not a JSON value: %v", err)
		}
		if err := json.Unmarshal(b, &c.expectedJSON); err != nil {
			return nil, bad("expected", "not a JSON value: %v", err)
		}
		c.threshold, err = frac("threshold", d.Threshold, DefaultJSONDiffThreshold)
		if err != nil {
			return nil, err
		}
	case ListContains:
		items, ok := stringList(d.Expected)
		if !ok || len(items) == 0 {
			return nil, bad("expected", "list_contains needs expected: a non-empty list of strings")
		}
		for _, it := range items {
			if strings.TrimSpace(it) == "" {
				return nil, bad("expected", "an item is empty")
			}
		}
		c.items = items
		if c.threshold, err = frac("threshold", d.Threshold, DefaultListContainsThreshold); err != nil {
			return nil, err
		}
		c.fuzzyThreshold, err = frac("fuzzy_threshold", d.FuzzyThreshold, DefaultFuzzyThreshold)
	case Regex:
		if d.Pattern == "" {
			return nil, bad("pattern", "regex needs pattern: an RE2 expression")
		}
		if c.re, err = regexp.Compile(d.Pattern); err != nil {
			return nil, bad("pattern", "%v", err)
		}
	case FileExists, FileContains:
		if c.path, err = projectPath(d.Path); err != nil {
			return nil, err
		}
		if d.Type == FileContains {
			var ok bool
			if c.contains, ok = stringList(d.Contains); !ok {
				return nil, bad("contains", "must be a string or a list of strings")
			}
			if c.not, ok = stringList(d.NotContains); !ok {
				return nil, bad("not_contains", "must be a string or a list of strings")
			}
			if len(c.contains)+len(c.not) == 0 {
				return nil, bad("", "file_contains needs contains or not_contains")
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

func usesList(a []string) string {
	if len(a) == 0 {
		return "nothing but type and name"
	}
	return strings.Join(a, ", ")
}

// projectPath cleans a project-relative path and refuses one that would
// leave the project (absolute, "..", a drive or a backslash path).
func projectPath(p string) (string, error) {
	if p == "" {
		return "", bad("path", "missing: a file relative to the project")
	}
	if strings.Contains(p, "\\") || strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') {
		return "", bad("path", "%q must be relative to the project, with / between names", p)
	}
	c := path.Clean(p)
	if !fs.ValidPath(c) || c == "." {
		return "", bad("path", "%q leaves the project or names the project itself", p)
	}
	return c, nil
}

// number accepts the numbers a YAML or JSON decoder produces.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	}
	return 0, false
}

// stringList accepts nil (empty), a string, or a list of strings.
func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case string:
		return []string{x}, true
	case []string:
		return x, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
