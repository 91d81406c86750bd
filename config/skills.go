package config

import (
	"reflect"

	"gopkg.in/yaml.v3"
)

// MutationOverride is a skill's own mutation settings, under
// skills.<name>.mutation: every key of mutation except debounce and
// extra_roots (which are about files, not skills). A key left out keeps
// the global value.
type MutationOverride struct {
	Method             *string  `yaml:"method"`
	MinSamples         *int     `yaml:"min_samples"`
	MaxSamples         *int     `yaml:"max_samples"`
	Confidence         *float64 `yaml:"confidence"`
	Exploration        *float64 `yaml:"exploration"`
	AutoRollback       *bool    `yaml:"auto_rollback"`
	RollbackOnF        *bool    `yaml:"rollback_on_f"`
	RollbackRatio      *float64 `yaml:"rollback_ratio"`
	RollbackFailRate   *float64 `yaml:"rollback_fail_rate"`
	CooldownExecutions *int     `yaml:"cooldown_executions"`
	RollbackEdits      *string  `yaml:"rollback_edits"`
}

// skillEntry is the long form of a skills.<name> entry: a mapping with
// the complexity and the mutation overrides. The short form is the
// complexity alone (skills.<name>: complex).
type skillEntry struct {
	Complexity string           `yaml:"complexity"`
	Mutation   MutationOverride `yaml:"mutation"`
}

// Apply returns m with the override's keys set.
func (o MutationOverride) Apply(m Mutation) Mutation {
	dst := reflect.ValueOf(&m).Elem()
	src := reflect.ValueOf(o)
	for i := 0; i < src.NumField(); i++ {
		f := src.Field(i)
		if f.IsNil() {
			continue
		}
		tag := src.Type().Field(i).Tag.Get("yaml")
		if d, ok := fieldByTag(dst, tag); ok {
			d.Set(f.Elem())
		}
	}
	return m
}

// merge sets in o the keys set in n (a later file wins key by key).
func (o *MutationOverride) merge(n MutationOverride) {
	dst := reflect.ValueOf(o).Elem()
	src := reflect.ValueOf(n)
	for i := 0; i < src.NumField(); i++ {
		if f := src.Field(i); !f.IsNil() {
			dst.Field(i).Set(f)
		}
	}
}

// MutationFor returns the mutation settings of a skill name: the global
// ones with the skill's overrides applied.
func (c *Config) MutationFor(skill string) Mutation {
	if o, ok := c.SkillMutation[skill]; ok {
		return o.Apply(c.Mutation)
	}
	return c.Mutation
}

// splitSkills takes the long-form entries out of the skills mapping of
// root: their mutation keys go to c.SkillMutation (located errors, as
// for every key), their complexity stays in the mapping as the short form.
func (c *Config) splitSkills(file string, root *yaml.Node, lines map[string]int) error {
	if root.Kind != yaml.MappingNode {
		return nil
	}
	var skills *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "skills" {
			skills = root.Content[i+1]
		}
	}
	if skills == nil || skills.Kind != yaml.MappingNode {
		return nil
	}
	kept := skills.Content[:0:0]
	for i := 0; i+1 < len(skills.Content); i += 2 {
		k, val := skills.Content[i], skills.Content[i+1]
		if val.Kind != yaml.MappingNode {
			kept = append(kept, k, val)
			continue
		}
		key := joinKey("skills", k.Value)
		lines[key] = k.Line
		var e skillEntry
		if err := decodeNode(file, val, reflect.ValueOf(&e).Elem(), key, lines); err != nil {
			return err
		}
		if c.SkillMutation == nil {
			c.SkillMutation = map[string]MutationOverride{}
		}
		o := c.SkillMutation[k.Value]
		o.merge(e.Mutation)
		c.SkillMutation[k.Value] = o
		if e.Complexity != "" {
			kept = append(kept, k, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.Complexity, Line: val.Line, Column: val.Column})
		}
	}
	skills.Content = kept
	return nil
}

// validateMutation checks one set of mutation settings; prefix is the
// dotted path of their mapping ("mutation." or "skills.NAME.mutation.").
func validateMutation(m Mutation, prefix string, bad func(key, format string, a ...any) error) error {
	switch {
	case m.Method != "sequential" && m.Method != "sepa":
		return bad(prefix+"method", "%q is not sequential or sepa", m.Method)
	case m.MinSamples < 1:
		return bad(prefix+"min_samples", "must be at least 1")
	case m.MaxSamples < m.MinSamples:
		return bad(prefix+"max_samples", "must be at least min_samples (%d)", m.MinSamples)
	case m.Confidence <= 0.5 || m.Confidence >= 1:
		return bad(prefix+"confidence", "must be in (0.5, 1), got %v", m.Confidence)
	case m.Exploration < 0 || m.Exploration > 1:
		return bad(prefix+"exploration", "must be in [0, 1], got %v", m.Exploration)
	case m.RollbackRatio < 0 || m.RollbackRatio > 1:
		return bad(prefix+"rollback_ratio", "must be in [0, 1] (0 turns it off), got %v", m.RollbackRatio)
	case m.RollbackFailRate < 0 || m.RollbackFailRate > 1:
		return bad(prefix+"rollback_fail_rate", "must be in [0, 1] (1 turns it off), got %v", m.RollbackFailRate)
	case m.CooldownExecutions < 0:
		return bad(prefix+"cooldown_executions", "must not be negative")
	case m.Debounce < 0:
		return bad(prefix+"debounce", "must not be negative")
	case m.RollbackEdits != "ask" && m.RollbackEdits != "auto":
		return bad(prefix+"rollback_edits", "%q is not ask or auto", m.RollbackEdits)
	}
	return nil
}

// validateSkills checks every skill's mutation settings with its
// overrides applied.
func (c *Config) validateSkills(bad func(key, format string, a ...any) error) error {
	for name, o := range c.SkillMutation {
		if err := validateMutation(o.Apply(c.Mutation), "skills."+name+".mutation.", bad); err != nil {
			return err
		}
	}
	return nil
}
