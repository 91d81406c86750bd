package config

import (
	"slices"
	"testing"
)

func TestChanged(t *testing.T) {
	base := "collector:\n  idle_timeout: 10m\nskills:\n  deploy:\n    complexity: medium\n"
	for _, tc := range []struct {
		name, next string
		want       []string
	}{
		{"same", base, nil},
		{"one key", "collector:\n  idle_timeout: 20m\nskills:\n  deploy:\n    complexity: medium\n", []string{"collector.idle_timeout"}},
		{"back to the default", "skills:\n  deploy:\n    complexity: medium\n", []string{"collector.idle_timeout"}},
		{"a map is one key", base + "pricing:\n  models:\n    claude-x:\n      input: 1\n", []string{"pricing.models"}},
		{"a list is one key", base + "mutation:\n  extra_roots: [/srv/prompts]\n", []string{"mutation.extra_roots"}},
		{"keys sorted", base + "mutation:\n  min_samples: 9\naggregate:\n  trim: 0.2\n", []string{"aggregate.trim", "mutation.min_samples"}},
		{"a skill's complexity", "collector:\n  idle_timeout: 10m\nskills:\n  deploy:\n    complexity: complex\n", []string{"skills"}},
		{"a skill's mutation", base + "    mutation:\n      min_samples: 8\n", []string{"skills.deploy.mutation"}},
		{"a skill's checks", base + "    checks:\n      - type: regex\n        pattern: ok\n", []string{"skills.deploy.checks"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def, err := Load("")
			if err != nil {
				t.Fatal(err)
			}
			a, err := Parse("a.yaml", []byte(base), def)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Parse("b.yaml", []byte(tc.next), def)
			if err != nil {
				t.Fatal(err)
			}
			if got := Changed(a, b); !slices.Equal(got, tc.want) {
				t.Errorf("Changed = %q, want %q", got, tc.want)
			}
			if got := Changed(b, a); !slices.Equal(got, tc.want) {
				t.Errorf("Changed reversed = %q, want %q", got, tc.want)
			}
		})
	}
}
