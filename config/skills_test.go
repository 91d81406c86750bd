package config

import (
	"errors"
	"strings"
	"testing"
	"time"
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
	if len(base.SkillMutation) != 0 {
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

func TestEvolveSettings(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if m := base.Mutation; m.Evolve != "off" || m.EvolveBelow != "B" || len(m.Mutator) != 0 || m.Claude != "claude" || m.MutatorTimeout != 3*time.Minute {
		t.Fatalf("defaults %+v", m)
	}
	c, err := Parse("user.yaml", []byte("mutation:\n  mutator: [my-mutator, --fast]\n  mutator_timeout: 30s\nskills:\n  deploy:\n    mutation:\n      evolve: auto\n      evolve_below: C\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.MutationFor("deploy"); d.Evolve != "auto" || d.EvolveBelow != "C" {
		t.Errorf("deploy %+v", d)
	}
	if o := c.MutationFor("other"); o.Evolve != "off" || strings.Join(o.Mutator, " ") != "my-mutator --fast" || o.MutatorTimeout != 30*time.Second {
		t.Errorf("other %+v", o)
	}
	for _, c := range []struct{ src, key string }{
		{"mutation:\n  evolve: on\n", "mutation.evolve"},
		{"skills:\n  deploy:\n    mutation:\n      evolve: always\n", "skills.deploy.mutation.evolve"},
		{"mutation:\n  evolve_below: F\n", "mutation.evolve_below"},
		{"mutation:\n  mutator_timeout: 0s\n", "mutation.mutator_timeout"},
		{"mutation:\n  claude: \"\"\n", "mutation.claude"},
		{"mutation:\n  edit_budget: 0\n", "mutation.edit_budget"},
		{"mutation:\n  edit_budget: 1.5\n", "mutation.edit_budget"},
	} {
		_, err := Parse("user.yaml", []byte(c.src), base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != c.key || ce.Line == 0 {
			t.Errorf("%q: error %v, want one located at key %s", c.src, err, c.key)
		}
	}
}

// mutation.eval_gate: off by default, on with threshold or max_drop, and
// a bad value fails naming the file, the line and the key.
func TestEvalGate(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if base.Mutation.EvalGate.On() {
		t.Fatalf("the gate is on by default: %+v", base.Mutation.EvalGate)
	}
	c, err := Parse("user.yaml", []byte("mutation:\n  eval_gate:\n    threshold: 0.8\n    max_drop: 0.1\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if g := c.Mutation.EvalGate; !g.On() || *g.Threshold != 0.8 || *g.MaxDrop != 0.1 || g.Timeout != 0 {
		t.Errorf("gate %+v", g)
	}
	c, err = Parse("user.yaml", []byte("mutation:\n  eval_gate: {max_drop: 0, timeout: 2m}\n"), base)
	if err != nil || !c.Mutation.EvalGate.On() || c.Mutation.EvalGate.Threshold != nil || c.Mutation.EvalGate.Timeout != 2*time.Minute {
		t.Errorf("max_drop alone: %v %+v", err, c.Mutation.EvalGate)
	}
	for _, tc := range []struct {
		src, key string
		line     int
	}{
		{"mutation:\n  eval_gate:\n    threshold: 1.5\n", "mutation.eval_gate.threshold", 3},
		{"mutation:\n  eval_gate:\n    threshold: 0.5\n    max_drop: -0.1\n", "mutation.eval_gate.max_drop", 4},
		{"mutation:\n  eval_gate:\n    threshold: high\n", "mutation.eval_gate.threshold", 3},
		{"mutation:\n  eval_gate:\n    thresold: 0.5\n", "mutation.eval_gate.thresold", 3},
		{"mutation:\n  eval_gate: 0.8\n", "mutation.eval_gate", 2},
		{"mutation:\n  eval_gate:\n    timeout: 5m\n", "mutation.eval_gate.timeout", 3},
		{"mutation:\n  eval_gate: {threshold: 1, timeout: -1s}\n", "mutation.eval_gate.timeout", 2},
	} {
		_, err := Parse("user.yaml", []byte(tc.src), base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line != tc.line || ce.File != "user.yaml" {
			t.Errorf("%q: error %v, want one at user.yaml:%d key %s", tc.src, err, tc.line, tc.key)
		}
	}
}

// skills.NAME.mutation.eval_gate replaces the whole gate for the skill:
// on for one skill, off ({}) for another; located errors under its key.
func TestEvalGatePerSkill(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("user.yaml", []byte("mutation:\n  eval_gate: {threshold: 0.8, timeout: 1m}\nskills:\n  deploy:\n    mutation:\n      eval_gate:\n        max_drop: 0.2\n        timeout: 6m\n  lint:\n    mutation:\n      eval_gate: {}\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if g := c.MutationFor("deploy").EvalGate; !g.On() || g.Threshold != nil || *g.MaxDrop != 0.2 {
		t.Errorf("deploy's gate %+v", g)
	}
	if g := c.MutationFor("lint").EvalGate; g.On() {
		t.Errorf("lint's gate is on: %+v", g)
	}
	if g := c.MutationFor("other").EvalGate; !g.On() || *g.Threshold != 0.8 {
		t.Errorf("the global gate %+v", g)
	}
	if d := c.EvalGateTimeout(); d != 6*time.Minute {
		t.Errorf("the longest gate: %v", d)
	}
	if d := base.EvalGateTimeout(); d != 0 {
		t.Errorf("no gate: %v", d)
	}
	for _, tc := range []struct {
		src, key string
		line     int
	}{
		{"skills:\n  deploy:\n    mutation:\n      eval_gate:\n        threshold: 2\n", "skills.deploy.mutation.eval_gate.threshold", 5},
		{"skills:\n  deploy:\n    mutation:\n      eval_gate:\n        max_dropp: 0.1\n", "skills.deploy.mutation.eval_gate.max_dropp", 5},
		{"skills:\n  deploy:\n    mutation:\n      eval_gate: yes\n", "skills.deploy.mutation.eval_gate", 4},
	} {
		_, err := Parse("user.yaml", []byte(tc.src), base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line != tc.line {
			t.Errorf("%q: error %v, want one at line %d key %s", tc.src, err, tc.line, tc.key)
		}
	}
}

// TestClaudeMDIsSession (issue 36 item 9): the session's base prompt is
// configured by the name people read, CLAUDE.md, as by its id _session.
func TestClaudeMDIsSession(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("config.yaml", []byte("skills:\n  CLAUDE.md:\n    complexity: complex\n    mutation:\n      rollback_edits: auto\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	if c.Complexity("_session") != "complex" || c.MutationFor("_session").RollbackEdits != "auto" {
		t.Errorf("CLAUDE.md's settings are not _session's: %q %+v", c.Complexity("_session"), c.MutationFor("_session"))
	}
	if _, ok := c.Skills["CLAUDE.md"]; ok {
		t.Errorf("CLAUDE.md kept as a skill name of its own: %v", c.Skills)
	}
}
