package config

import (
	"errors"
	"testing"
)

func TestSkillMutationOverrides(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if base.Mutation.RollbackEdits != "ask" {
		t.Fatalf("default rollback_edits %q, want ask", base.Mutation.RollbackEdits)
	}
	c, err := Parse("user.yaml", []byte("skills:\n  review: simple\n  deploy:\n    complexity: complex\n    mutation:\n      rollback_edits: auto\n      min_samples: 10\n  lint:\n    mutation:\n      auto_rollback: false\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if m := c.MutationFor("deploy"); m.RollbackEdits != "auto" || m.MinSamples != 10 || m.MaxSamples != base.Mutation.MaxSamples {
		t.Errorf("deploy's mutation %+v", m)
	}
	if m := c.MutationFor("lint"); m.AutoRollback || m.RollbackEdits != "ask" {
		t.Errorf("lint's mutation %+v", m)
	}
	if m := c.MutationFor("other"); m.MinSamples != base.Mutation.MinSamples || m.RollbackEdits != "ask" {
		t.Errorf("other's mutation %+v", m)
	}
	if c.Complexity("deploy") != "complex" || c.Complexity("review") != "simple" || c.Complexity("lint") != base.DefaultComplexity {
		t.Errorf("complexities %q %q %q", c.Complexity("deploy"), c.Complexity("review"), c.Complexity("lint"))
	}
	if base.SkillMutation != nil && len(base.SkillMutation) != 0 {
		t.Errorf("Parse changed its base: %+v", base.SkillMutation)
	}
	for _, tc := range []struct{ yaml, key string }{
		{"skills:\n  deploy:\n    mutation:\n      min_sample: 3\n", "skills.deploy.mutation.min_sample"},
		{"skills:\n  deploy:\n    mutation:\n      debounce: 1s\n", "skills.deploy.mutation.debounce"},
		{"skills:\n  deploy:\n    mutation:\n      max_samples: 2\n", "skills.deploy.mutation.max_samples"},
		{"skills:\n  deploy:\n    mutation:\n      rollback_edits: maybe\n", "skills.deploy.mutation.rollback_edits"},
		{"mutation:\n  rollback_edits: never\n", "mutation.rollback_edits"},
		{"skills:\n  deploy:\n    complexity: huge\n", "skills.deploy"},
	} {
		_, err := Parse("user.yaml", []byte(tc.yaml), base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line == 0 || ce.File != "user.yaml" {
			t.Errorf("%q: error %v, want one located at key %s", tc.yaml, err, tc.key)
		}
	}
}
