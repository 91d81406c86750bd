package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: a user's config file, whatever its bytes, either parses into
// a config that validates, or fails with an *Error naming the file, and
// the base it was laid over is never changed. Seeds: the embedded defaults,
// a few overrides and testdata/fuzz/FuzzParse/.
func FuzzParse(f *testing.F) {
	f.Add(Default)
	for _, s := range []string{
		"skills:\n  deploy: complex\n",
		"max_expected:\n  simple:\n    duration: 10s\n    tools: 3\n",
		"collector:\n  batch_lines: 0\n",
		"mutation:\n  method: sequential\n  min_samples: -1\n",
		"mutation:\n  debounce: 5x\n",
		"hook:\n  max_field: 1k\n",
		"nope: 1\n",
		"- a\n- b\n",
		"skills: [1, 2]\n",
		"skills:\n  a:\n    checks:\n      - type: regex\n        pattern: '(x'\n",
		"skills:\n  a:\n    checks:\n      - type: json_diff\n        expected: {1: [a]}\n",
		"scoring:\n  label_weight: .nan\n",
		"mutation: &a\n  extra_roots: *a\n",
		"\t- bad indent",
		"",
	} {
		f.Add([]byte(s))
	}
	base, err := Parse("max_expected.yaml (embedded)", Default, nil)
	if err != nil {
		f.Fatal(err)
	}
	keep := base.clone()
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("user.yaml", data, base)
		if !reflect.DeepEqual(base.clone(), keep) {
			t.Fatalf("Parse changed its base on %q", data)
		}
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "user.yaml" || !strings.HasPrefix(err.Error(), "user.yaml") {
				t.Fatalf("error %q (%T) does not name the file", err, err)
			}
			return
		}
		if err := c.validate("user.yaml", map[string]int{}); err != nil {
			t.Fatalf("a parsed config does not validate: %v", err)
		}
	})
}
