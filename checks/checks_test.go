package checks

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func ptr[T any](v T) *T { return &v }

func near(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
		sim  float64
	}{
		{"kitten", "sitting", 3, 1 - 3.0/7},  // k→s, e→i, +g
		{"flaw", "lawn", 2, 0.5},             // −f, +n
		{"saturday", "sunday", 3, 1 - 3.0/8}, // −a, −t, r→n
		{"", "", 0, 1},                       // identical
		{"", "abc", 3, 0},                    // all inserted
		{"héllo", "hello", 1, 0.8},           // runes, not bytes
		{"the quick brown fox", "the quick brown fox", 0, 1},
		{"urgent", "urgnet", 2, 1 - 2.0/6},    // a transposition is two edits
		{"deadline", "dedline", 1, 1 - 1.0/8}, // one deletion
		{"abc", "xyz", 3, 0},
	} {
		if got := Distance(tc.a, tc.b); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.d)
		}
		if got := Distance(tc.b, tc.a); got != tc.d {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetry)", tc.b, tc.a, got, tc.d)
		}
		if got := Similarity(tc.a, tc.b); !near(got, tc.sim) {
			t.Errorf("Similarity(%q, %q) = %.4f, want %.4f", tc.a, tc.b, got, tc.sim)
		}
	}
}

func TestFirstNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"The answer is 42.", 42, true},
		{"-3.5 degrees", -3.5, true},
		{"about .5 of it", 0.5, true},
		{"1e3 requests", 1000, true},
		{"v2 is out, 10 left", 2, true},
		{"1,234 rows", 1, true},
		{"costs +7", 7, true},
		{"3.", 3, true},
		{"e and E", 0, false},
		{"no numbers here", 0, false},
		{"", 0, false},
		{"1e999", 0, false},
	} {
		got, ok := FirstNumber(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("FirstNumber(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestExtractJSON(t *testing.T) {
	for _, tc := range []struct {
		in, where string
		ok        bool
	}{
		{`{"a": 1}`, "the whole output", true},
		{"  [1, 2]\n", "the whole output", true},
		{"Here it is:\n\n```json\n{\"id\": 1}\n```\nDone.", "a fenced block", true},
		{"~~~\n{\"id\": 1}\n~~~", "a fenced block", true},
		{"```\nnot json\n```\n```json\n{\"b\": true}\n```", "a fenced block", true},
		{"```json\n{\"open\": 1}", "a fenced block", true}, // unclosed: to the end
		{`{"a": 1} trailing`, "", false},
		{"{a: 1}", "", false},
		{"plain words", "", false},
		{"", "", false},
	} {
		_, where, ok := ExtractJSON(tc.in)
		if ok != tc.ok || where != tc.where {
			t.Errorf("ExtractJSON(%q) = %q, %v; want %q, %v", tc.in, where, ok, tc.where, tc.ok)
		}
	}
}

func TestJSONSimilarity(t *testing.T) {
	parse := func(s string) any {
		v, ok := unmarshalJSON(s)
		if !ok {
			t.Fatalf("bad JSON %s", s)
		}
		return v
	}
	for _, tc := range []struct {
		name, e, a string
		want       float64
	}{
		{"equal", `{"id": 1, "status": "ok"}`, `{"status": "ok", "id": 1}`, 1},
		// keys extra, id, meta, status, tags: 0 + 1 + (1 + 2/3)/2 + 1 + 1/2, over 5
		{"nested", `{"id": 1, "status": "ok", "tags": ["a", "b"], "meta": {"x": 1, "y": 2}}`,
			`{"id": 1, "status": "ok", "tags": ["a"], "meta": {"x": 1, "y": 3}, "extra": true}`, (0 + 1 + (1+2.0/3)/2 + 1 + 0.5) / 5},
		{"missing key", `{"a": 1, "b": 2}`, `{"a": 1}`, 0.5},
		{"string edit", `{"s": "kitten"}`, `{"s": "sitting"}`, 1 - 3.0/7},
		{"number", `{"n": 100}`, `{"n": 90}`, 0.9},
		{"kinds differ", `{"n": 1}`, `{"n": "1"}`, 0},
		{"not an object", `{"n": 1}`, `[1]`, 0},
		{"empty objects", `{}`, `{}`, 1},
		{"arrays by index", `[1, 2, 3]`, `[1, 2]`, 2.0 / 3},
		{"null and bool", `[null, true]`, `[null, false]`, 0.5},
		{"deep", `{"a": {"b": {"c": [1, {"d": "x"}]}}}`, `{"a": {"b": {"c": [1, {"d": "y"}]}}}`, 0.5},
	} {
		if got := JSONSimilarity(parse(tc.e), parse(tc.a)); !near(got, tc.want) {
			t.Errorf("%s: JSONSimilarity = %.4f, want %.4f", tc.name, got, tc.want)
		}
	}
}

func must(t testing.TB, d Def) *Check {
	t.Helper()
	c, err := Compile(d)
	if err != nil {
		t.Fatalf("Compile(%+v): %v", d, err)
	}
	return c
}

func TestScorers(t *testing.T) {
	proj := fstest.MapFS{
		"go.mod":         {Data: []byte("module x\n")},
		"out/report.txt": {Data: []byte("3 passed, 0 failed\nTODO: none\n")},
	}
	for _, tc := range []struct {
		name   string
		def    Def
		out    string
		score  float64
		passed bool
		detail string // a substring of the detail
	}{
		{"exact equal after strip", Def{Type: ExactMatch, Expected: "yes"}, "  yes\n", 1, true, "equal"},
		{"exact case", Def{Type: ExactMatch, Expected: "Yes"}, "yes", 0, false, "differs"},
		{"exact case-insensitive", Def{Type: ExactMatch, Expected: "Yes", CaseSensitive: ptr(false)}, "YES", 1, true, "equal"},
		{"exact no strip", Def{Type: ExactMatch, Expected: "yes", Strip: ptr(false)}, "yes\n", 0, false, "differs"},
		{"levenshtein pass", Def{Type: Levenshtein, Expected: "the quick brown fox"}, "the quick brown fix", 1 - 1.0/19, true, "similarity 0.95, threshold 0.85"},
		{"levenshtein fail", Def{Type: Levenshtein, Expected: "kitten", Threshold: ptr(0.6)}, "sitting", 1 - 3.0/7, false, "similarity 0.57, threshold 0.60"},
		{"numeric within 1%", Def{Type: NumericDiff, Expected: 42}, "The answer is 42.3", 1, true, "off by 0.71%"},
		{"numeric off", Def{Type: NumericDiff, Expected: 100, Tolerance: ptr(0.05)}, "I count 90 rows", 0.9, false, "off by 10.00%"},
		{"numeric zero expected", Def{Type: NumericDiff, Expected: 0, Tolerance: ptr(0.5)}, "0.25", 1, true, "0.25 vs 0"},
		{"numeric none", Def{Type: NumericDiff, Expected: 1}, "none", 0, false, "no number"},
		{"json valid", Def{Type: JSONValidity}, "```json\n[1]\n```", 1, true, "a fenced block"},
		{"json invalid", Def{Type: JSONValidity}, "{a: 1}", 0, false, "not valid JSON"},
		{"json diff", Def{Type: JSONDiff, Expected: map[string]any{"id": 1, "status": "ok"}}, `{"id": 1, "status": "okay"}`, (1 + 0.5) / 2, false, "similarity 0.75"},
		{"json diff equal in fence", Def{Type: JSONDiff, Expected: map[string]any{"id": 1}}, "Result:\n```\n{\"id\": 1}\n```", 1, true, "a fenced block"},
		{"json diff not json", Def{Type: JSONDiff, Expected: map[string]any{"id": 1}}, "id is 1", 0, false, "not JSON"},
		{"list exact", Def{Type: ListContains, Expected: []any{"urgent", "deadline", "tomorrow"}}, "URGENT: the deadline is tomorrow", 1, true, "3/3 items"},
		// "urgnet" is 0.67 from "urgent" (< 0.75); "dedline" and "tomorow" are 0.875.
		{"list fuzzy", Def{Type: ListContains, Expected: []any{"urgent", "deadline", "tomorrow"}}, "This is urgnet: the dedline is tomorow.", 2.0 / 3, false, `missing "urgent"`},
		{"list fuzzy lower threshold", Def{Type: ListContains, Expected: []any{"urgent", "deadline", "tomorrow"}, FuzzyThreshold: ptr(0.6)}, "This is urgnet: the dedline is tomorow.", 1, true, "3/3"},
		{"list not fuzzy", Def{Type: ListContains, Expected: []any{"urgent", "deadline", "tomorrow"}, Fuzzy: ptr(false)}, "This is urgnet: the dedline is tomorow.", 0, false, "0/3"},
		{"list two-word item", Def{Type: ListContains, Expected: []any{"next steps"}, Threshold: ptr(1.0)}, "Nxt steps: run it", 1, true, "1/1"},
		{"regex", Def{Type: Regex, Pattern: `(?i)^ok\b`}, "OK, done", 1, true, "matches"},
		{"regex no", Def{Type: Regex, Pattern: `\d{3}`}, "12", 0, false, "no match"},
		{"file exists", Def{Type: FileExists, Path: "go.mod"}, "", 1, true, "go.mod exists"},
		{"file exists dir", Def{Type: FileExists, Path: "out"}, "", 1, true, "exists"},
		{"file missing", Def{Type: FileExists, Path: "nope.txt"}, "", 0, false, "does not exist"},
		{"file contains", Def{Type: FileContains, Path: "out/report.txt", Contains: "0 failed", NotContains: []any{"panic"}}, "", 1, true, "2/2 conditions"},
		{"file contains half", Def{Type: FileContains, Path: "./out/report.txt", Contains: []any{"0 failed", "coverage"}, NotContains: "TODO"}, "", 1.0 / 3, false, `lacks "coverage", has "TODO"`},
		{"file contains missing", Def{Type: FileContains, Path: "x.txt", Contains: "a"}, "", 0, false, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := must(t, tc.def).Run(Input{Output: tc.out, HasOutput: true, Project: proj})
			if !near(o.Score, tc.score) || o.Passed != tc.passed || !strings.Contains(o.Detail, tc.detail) {
				t.Errorf("got score %.4f passed %v detail %q; want %.4f %v ~%q", o.Score, o.Passed, o.Detail, tc.score, tc.passed, tc.detail)
			}
		})
	}
}

func TestRunMeanAndErrors(t *testing.T) {
	cs := []*Check{
		must(t, Def{Type: ExactMatch, Name: "answer", Expected: "42"}),
		must(t, Def{Type: JSONValidity}),
		must(t, Def{Type: FileExists, Path: "go.mod"}),
	}
	r := Run(cs, Input{Output: "42", HasOutput: true, Project: fstest.MapFS{"go.mod": {}}})
	if !near(r.Score, 1) || r.Passed != 3 {
		t.Fatalf("all pass: %+v", r)
	}
	if want := "3/3 checks passed: answer passed (equal); json_validity passed (valid JSON (the whole output)); file_exists passed (go.mod exists)"; r.Detail != want {
		t.Errorf("detail %q\nwant   %q", r.Detail, want)
	}
	// No output and no project: every check errors, scores 0 for itself, says why.
	r = Run(cs, Input{})
	if r.Score != 0 || r.Passed != 0 || len(r.Outcomes) != 3 {
		t.Fatalf("nothing to look at: %+v", r)
	}
	for _, o := range r.Outcomes {
		if !o.Error || o.Detail == "" {
			t.Errorf("outcome %+v: want an error with its reason", o)
		}
	}
	if !strings.Contains(r.Detail, "no final output") || !strings.Contains(r.Detail, "no project directory") {
		t.Errorf("detail %q does not say why", r.Detail)
	}
	// One error does not sink the others.
	r = Run(cs, Input{Output: "42", HasOutput: true})
	if !near(r.Score, 2.0/3) || r.Passed != 2 || !strings.HasPrefix(r.Detail, "2/3 checks passed") {
		t.Errorf("one erroring check: %+v", r)
	}
	if r := Run(nil, Input{Output: "x", HasOutput: true}); len(r.Outcomes) != 0 || r.Detail != "" {
		t.Errorf("no checks: %+v", r)
	}
}

func TestCompileRefuses(t *testing.T) {
	for _, tc := range []struct {
		def   Def
		field string
	}{
		{Def{}, "type"},
		{Def{Type: "exact"}, "type"},
		{Def{Type: ExactMatch}, "expected"},
		{Def{Type: ExactMatch, Expected: 3}, "expected"},
		{Def{Type: ExactMatch, Expected: "a", Threshold: ptr(0.5)}, "threshold"},
		{Def{Type: Levenshtein, Expected: "a", Threshold: ptr(1.5)}, "threshold"},
		{Def{Type: NumericDiff, Expected: "ten"}, "expected"},
		{Def{Type: NumericDiff, Expected: 1, Tolerance: ptr(-0.1)}, "tolerance"},
		{Def{Type: JSONValidity, Expected: "x"}, "expected"},
		{Def{Type: JSONDiff}, "expected"},
		{Def{Type: JSONDiff, Expected: map[any]any{1: "a"}}, "expected"},
		{Def{Type: ListContains, Expected: []any{}}, "expected"},
		{Def{Type: ListContains, Expected: []any{"a", 2}}, "expected"},
		{Def{Type: ListContains, Expected: []any{" "}}, "expected"},
		{Def{Type: ListContains, Expected: []any{"a"}, FuzzyThreshold: ptr(2.0)}, "fuzzy_threshold"},
		{Def{Type: Regex}, "pattern"},
		{Def{Type: Regex, Pattern: "(unclosed"}, "pattern"},
		{Def{Type: FileExists}, "path"},
		{Def{Type: FileExists, Path: "/etc/passwd"}, "path"},
		{Def{Type: FileExists, Path: "../secret"}, "path"},
		{Def{Type: FileExists, Path: "a/../../b"}, "path"},
		{Def{Type: FileExists, Path: "."}, "path"},
		{Def{Type: FileExists, Path: `C:\x`}, "path"},
		{Def{Type: FileContains, Path: "a"}, ""},
		{Def{Type: FileContains, Path: "a", Contains: 3}, "contains"},
		{Def{Type: FileContains, Path: "a", Contains: "x", NotContains: []any{1}}, "not_contains"},
		{Def{Type: FileExists, Path: "a", Pattern: "x"}, "pattern"},
	} {
		_, err := Compile(tc.def)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, ErrInvalid) || fe.Msg == "" {
			t.Errorf("Compile(%+v) = %v; want a FieldError on %q", tc.def, err, tc.field)
		}
	}
}

// TestFileChecksConfined: through an os.Root, a link out of the project
// is not followed, though the path itself is inside.
func TestFileChecksConfined(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("password"), 0o600); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "ok.txt"), []byte("fine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(proj, "link")); err != nil {
		t.Skip("no symlinks:", err)
	}
	root, err := os.OpenRoot(proj)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	in := Input{Project: root.FS()}
	if o := must(t, Def{Type: FileContains, Path: "ok.txt", Contains: "fine"}).Run(in); !o.Passed {
		t.Errorf("inside: %+v", o)
	}
	o := must(t, Def{Type: FileContains, Path: "link", Contains: "password"}).Run(in)
	if o.Passed || o.Score != 0 || !o.Error {
		t.Errorf("a link out of the project was read: %+v", o)
	}
	if o := must(t, Def{Type: FileExists, Path: "link"}).Run(in); o.Passed {
		t.Errorf("a link out of the project counts as existing: %+v", o)
	}
}
