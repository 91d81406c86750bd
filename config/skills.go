package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sepad/sepad/checks"
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
	Evolve             *string  `yaml:"evolve"`
	EvolveBelow        *string  `yaml:"evolve_below"`
	// EvalGate replaces the whole of mutation.eval_gate for the skill
	// ({} turns it off).
	EvalGate *EvalGate `yaml:"eval_gate"`
}

// skillEntry is the long form of a skills.<name> entry: a mapping with
// the complexity and the mutation overrides. The short form is the
// complexity alone (skills.<name>: complex).
type skillEntry struct {
	Complexity string           `yaml:"complexity"`
	Mutation   MutationOverride `yaml:"mutation"`
	// Verify adds the skill's own verification patterns to outcome.verify
	// (docs/outcome.md).
	Verify []string `yaml:"verify"`
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
		if err := c.takeChecks(file, k.Value, val, lines); err != nil {
			return err
		}
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
		if e.Verify != nil {
			if c.SkillVerify == nil {
				c.SkillVerify = map[string][]string{}
			}
			c.SkillVerify[k.Value] = e.Verify
		}
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
	case m.Evolve != "off" && m.Evolve != "auto":
		return bad(prefix+"evolve", "%q is not off or auto", m.Evolve)
	case !slices.Contains([]string{"A+", "A", "B", "C", "D"}, m.EvolveBelow):
		return bad(prefix+"evolve_below", "%q is not a grade A+, A, B, C or D (a version graded below it evolves)", m.EvolveBelow)
	}
	g := m.EvalGate
	switch {
	case g.Threshold != nil && !(*g.Threshold >= 0 && *g.Threshold <= 1):
		return bad(prefix+"eval_gate.threshold", "must be a score in [0, 1] that each eval case must reach, got %v", *g.Threshold)
	case g.MaxDrop != nil && !(*g.MaxDrop >= 0 && *g.MaxDrop <= 1):
		return bad(prefix+"eval_gate.max_drop", "must be in [0, 1]: how far the candidate's eval score may fall below the baseline's, got %v", *g.MaxDrop)
	case g.Timeout < 0:
		return bad(prefix+"eval_gate.timeout", "must be a positive duration (0s: %v)", DefaultEvalGateTimeout)
	case g.Timeout > 0 && !g.On():
		return bad(prefix+"eval_gate.timeout", "the gate is off: set threshold or max_drop to turn it on")
	}
	for _, tool := range g.AllowTools {
		if strings.TrimSpace(tool) == "" || strings.HasPrefix(tool, "-") {
			return bad(prefix+"eval_gate.allow_tools", "%q is not a tool name (Bash, Write, Edit, \"Bash(go test:*)\")", tool)
		}
	}
	return nil
}

// validateSkills checks every skill's mutation settings with its
// overrides applied, and its verification patterns.
func (c *Config) validateSkills(bad func(key, format string, a ...any) error) error {
	for name, o := range c.SkillMutation {
		if err := validateMutation(o.Apply(c.Mutation), "skills."+name+".mutation.", bad); err != nil {
			return err
		}
	}
	for name, ps := range c.SkillVerify {
		if err := validatePatterns(ps, "skills."+name+".verify", bad); err != nil {
			return err
		}
	}
	return nil
}

// validatePatterns checks verification patterns (outcome.verify,
// skills.NAME.verify): each a regular expression that is not empty.
func validatePatterns(ps []string, key string, bad func(key, format string, a ...any) error) error {
	for _, p := range ps {
		if strings.TrimSpace(p) == "" {
			return bad(key, "a pattern is empty (it would match every command)")
		}
		if _, err := regexp.Compile(p); err != nil {
			return bad(key, "%q is not a regular expression: %v", p, err)
		}
	}
	return nil
}

// VerifyFor returns the verification patterns of a skill name:
// outcome.verify, then the skill's own (skills.NAME.verify).
func (c *Config) VerifyFor(skill string) []string {
	own := c.SkillVerify[skill]
	if len(own) == 0 {
		return c.Outcome.Verify
	}
	return append(slices.Clip(c.Outcome.Verify), own...)
}

// takeChecks takes the checks key out of a long-form skills.<name> entry,
// compiles every check and keeps them in c.SkillChecks; a bad check is an
// *Error naming the file, the line and the key
// (skills.NAME.checks[I].FIELD).
func (c *Config) takeChecks(file, name string, entry *yaml.Node, lines map[string]int) error {
	rest := entry.Content[:0:0]
	var list, listKey *yaml.Node
	for i := 0; i+1 < len(entry.Content); i += 2 {
		if entry.Content[i].Value == "checks" {
			listKey, list = entry.Content[i], entry.Content[i+1]
			continue
		}
		rest = append(rest, entry.Content[i], entry.Content[i+1])
	}
	if list == nil {
		return nil
	}
	entry.Content = rest
	key := "skills." + name + ".checks"
	lines[key] = listKey.Line
	if list.Kind == yaml.ScalarNode && list.Tag == "!!null" {
		c.setChecks(name, nil, nil)
		return nil
	}
	if list.Kind != yaml.SequenceNode {
		return &Error{File: file, Line: list.Line, Key: key, Msg: "expected a list of checks (- type: exact_match ...)"}
	}
	defs := make([]checks.Def, 0, len(list.Content))
	compiled := make([]*checks.Check, 0, len(list.Content))
	for i, n := range list.Content {
		ck := fmt.Sprintf("%s[%d]", key, i)
		lines[ck] = n.Line
		var d checks.Def
		if err := decodeNode(file, n, reflect.ValueOf(&d).Elem(), ck, lines); err != nil {
			return err
		}
		cc, err := checks.Compile(d)
		var fe *checks.FieldError
		if errors.As(err, &fe) {
			at := ck
			if fe.Field != "" {
				at = ck + "." + fe.Field
			}
			line := lines[at]
			if line == 0 {
				line = n.Line
			}
			return &Error{File: file, Line: line, Key: at, Msg: fe.Msg}
		}
		if err != nil {
			return &Error{File: file, Line: n.Line, Key: ck, Msg: err.Error()}
		}
		defs = append(defs, d)
		compiled = append(compiled, cc)
	}
	c.setChecks(name, defs, compiled)
	return nil
}

func (c *Config) setChecks(name string, defs []checks.Def, compiled []*checks.Check) {
	if c.SkillChecks == nil {
		c.SkillChecks = map[string][]*checks.Check{}
		c.SkillCheckDefs = map[string][]checks.Def{}
	}
	if len(compiled) == 0 {
		delete(c.SkillChecks, name)
		delete(c.SkillCheckDefs, name)
		return
	}
	c.SkillChecks[name] = compiled
	c.SkillCheckDefs[name] = defs
}

// ChecksFor returns the compiled checks of a skill name (nil: none).
func (c *Config) ChecksFor(skill string) []*checks.Check {
	return c.SkillChecks[skill]
}

// The session's base prompt has the skill name "_session", which every
// view calls CLAUDE.md: `skills: {CLAUDE.md: …}` configures it (when
// both are given, "_session" wins).
const (
	sessionSkill   = "_session"
	sessionDisplay = "CLAUDE.md"
)

// aliasSession files the settings given under CLAUDE.md under
// "_session", the name the rest of sepad looks up.
func (c *Config) aliasSession() {
	alias(c.Skills)
	alias(c.SkillMutation)
	alias(c.SkillChecks)
	alias(c.SkillCheckDefs)
	alias(c.SkillVerify)
}

func alias[V any](m map[string]V) {
	v, ok := m[sessionDisplay]
	if !ok {
		return
	}
	if _, dup := m[sessionSkill]; !dup {
		m[sessionSkill] = v
	}
	delete(m, sessionDisplay)
}
