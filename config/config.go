// Package config loads sepad's configuration: the embedded defaults in
// max_expected.yaml, overridden key by key by a user file. A bad user file
// fails with its path, line and key, never with a half-applied config.
package config

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/sepad/sepad/checks"
)

// Default is the embedded default configuration file.
//
//go:embed max_expected.yaml
var Default []byte

// Complexities a skill can have.
var Complexities = []string{"simple", "medium", "complex"}

// Config is the whole configuration.
type Config struct {
	MaxExpected       map[string]Limit  `yaml:"max_expected"`
	DefaultComplexity string            `yaml:"default_complexity"`
	Skills            map[string]string `yaml:"skills"`
	Aggregate         Aggregate         `yaml:"aggregate"`
	Collector         Collector         `yaml:"collector"`
	Hook              Hook              `yaml:"hook"`
	Mutation          Mutation          `yaml:"mutation"`
	Pricing           Pricing           `yaml:"pricing"`
	Scoring           Scoring           `yaml:"scoring"`
	Outcome           Outcome           `yaml:"outcome"`
	Team              Team              `yaml:"team"`
	Otel              Otel              `yaml:"otel"`

	// SkillMutation holds the per-skill mutation overrides
	// (skills.<name>.mutation), by skill name.
	SkillMutation map[string]MutationOverride `yaml:"-"`
	// SkillChecks holds each skill's own checks (skills.<name>.checks),
	// compiled, by skill name; SkillCheckDefs the definitions as written.
	SkillChecks    map[string][]*checks.Check `yaml:"-"`
	SkillCheckDefs map[string][]checks.Def    `yaml:"-"`
	// SkillVerify holds each skill's own verification patterns
	// (skills.<name>.verify), added to outcome.verify for that skill.
	SkillVerify map[string][]string `yaml:"-"`

	// Source names the user file applied on top of the defaults, or "".
	Source string `yaml:"-"`
}

// Limit is one row of the max_expected table.
type Limit struct {
	Time  time.Duration `yaml:"time"`
	Tools int           `yaml:"tools"`
	// Tokens, when above 0, makes the tokens an execution used (from its
	// transcript) a third part of efficiency; 0 leaves it out.
	Tokens int64 `yaml:"tokens"`
}

// Aggregate configures the per-version aggregate.
type Aggregate struct {
	Weights    []float64 `yaml:"weights"`
	Trim       float64   `yaml:"trim"`
	MinSamples int       `yaml:"min_samples"`
}

// Collector configures the daemon's ingestion.
type Collector struct {
	IdleTimeout   time.Duration `yaml:"idle_timeout"`
	BatchLines    int           `yaml:"batch_lines"`
	BatchInterval time.Duration `yaml:"batch_interval"`
	RotateBytes   int64         `yaml:"rotate_bytes"`
	ExtraFiles    []string      `yaml:"extra_files"`
	QuarantineMax int           `yaml:"quarantine_max"`
	// EventNames bounds the distinct unknown hook event names the store
	// counts apart; beyond, they count as "other" (docs/store.md).
	EventNames int `yaml:"event_names"`
	// Transcripts: read each closed execution's part of its session
	// transcript (tokens, cost, calls refused before any hook).
	Transcripts bool `yaml:"transcripts"`
	// Retention: executions and quarantined lines older than this are
	// removed (at the daemon's start and daily; grades, versions and
	// decisions are kept). 0 keeps everything.
	Retention time.Duration `yaml:"retention"`
}

// Otel configures the OpenTelemetry export (docs/team.md).
type Otel struct {
	// Endpoint is an OTLP/HTTP base URL; "" is off.
	Endpoint string `yaml:"endpoint"`
}

// Team configures the copy to a team's PostgreSQL (docs/team.md).
type Team struct {
	// Postgres is a libpq connection string (URL or key=value); "" is off.
	Postgres string `yaml:"postgres"`
	// PasswordFile holds the database password on its first line.
	PasswordFile string `yaml:"password_file"`
	// Person: auto (git's user.email, hashed), off, or a name.
	Person string `yaml:"person"`
	// ShareText sends the prompt versions' text too.
	ShareText bool `yaml:"share_text"`
}

// Scoring sets the nominal weights of the optional signals (docs/rubric.md):
// a person's label and a skill's own checks. The five SEPA signals keep
// theirs; a weight other than the default is written into the rubric
// version, so scores under other weights are never aggregated together.
type Scoring struct {
	LabelWeight  float64 `yaml:"label_weight"`
	ChecksWeight float64 `yaml:"checks_weight"`
	// OutcomeWeight is the nominal weight of the outcome signal: the
	// execution's verification and its claims (package outcome).
	OutcomeWeight float64 `yaml:"outcome_weight"`
}

// Outcome configures how an execution's work is read (docs/outcome.md).
type Outcome struct {
	// Verify are regular expressions (RE2) matched on each command a
	// Bash call runs: a match is a verification run (a test run), beside
	// the default runners.
	Verify []string `yaml:"verify"`
	// AfterStop is the check sepad runs itself in a project after an
	// execution that changed its files (docs/outcome.md, "Checking for
	// yourself"); off while no project is listed.
	AfterStop AfterStop `yaml:"after_stop"`
}

// AfterStop is outcome.after_stop.
type AfterStop struct {
	// Projects maps a project's directory (an absolute path, or ~/…) to
	// the command run there, as a list of words (no shell: write [sh, -c,
	// "…"] for one). Only a project sepad install recorded runs it.
	Projects map[string][]string `yaml:"projects"`
	// Timeout bounds one run; the command and its children are killed at
	// it.
	Timeout time.Duration `yaml:"timeout"`
	// MaxOutput bounds the bytes of output kept (the first quarter and
	// the last three quarters).
	MaxOutput int `yaml:"max_output"`
}

// AfterStopFor returns the after_stop command configured for project
// (an absolute path), and the configured directory it runs in: the
// listed project that is project or holds it (the longest wins).
func (c *Config) AfterStopFor(project string) (dir string, cmd []string) {
	if project == "" || !filepath.IsAbs(project) {
		return "", nil
	}
	project = filepath.Clean(project)
	for p, words := range c.Outcome.AfterStop.Projects {
		p = expandHome(p)
		if (project == p || strings.HasPrefix(project, p+string(filepath.Separator))) && len(p) > len(dir) {
			dir, cmd = p, words
		}
	}
	return dir, cmd
}

// expandHome reads a leading ~/ as the user's home directory, and cleans.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	}
	return filepath.Clean(p)
}

// Hook configures `sepad hook`.
type Hook struct {
	MaxField int `yaml:"max_field"`
}

// Mutation configures versions, decisions and rollback.
type Mutation struct {
	Method             string        `yaml:"method"`
	MinSamples         int           `yaml:"min_samples"`
	MaxSamples         int           `yaml:"max_samples"`
	Confidence         float64       `yaml:"confidence"`
	Exploration        float64       `yaml:"exploration"`
	AutoRollback       bool          `yaml:"auto_rollback"`
	RollbackOnF        bool          `yaml:"rollback_on_f"`
	RollbackRatio      float64       `yaml:"rollback_ratio"`
	RollbackFailRate   float64       `yaml:"rollback_fail_rate"`
	CooldownExecutions int           `yaml:"cooldown_executions"`
	Debounce           time.Duration `yaml:"debounce"`
	ExtraRoots         []string      `yaml:"extra_roots"`
	// RollbackEdits: ask (a person's version is never rewritten
	// automatically: "would roll back" and a notice) or auto.
	RollbackEdits string `yaml:"rollback_edits"`
	// Evolve: off, or auto (the daemon runs an evolution when the version
	// in force is graded below EvolveBelow; docs/evolve.md).
	Evolve      string `yaml:"evolve"`
	EvolveBelow string `yaml:"evolve_below"`
	// Mutator is the command that writes new versions (request on stdin,
	// text on stdout); empty: the user's Claude Code (Claude, the claude
	// command), headless.
	Mutator        []string      `yaml:"mutator"`
	Claude         string        `yaml:"claude"`
	MutatorTimeout time.Duration `yaml:"mutator_timeout"`
	// EditBudget is the share of a text one evolve attempt may change
	// (docs/evolve.md, "Bounded edits").
	EditBudget float64 `yaml:"edit_budget"`
	// EvalGate: a proposed or evolved version of a skill with an eval
	// suite runs it before it is written (docs/claude-code.md, "The eval
	// gate"); off while neither threshold nor max_drop is set.
	EvalGate EvalGate `yaml:"eval_gate"`
}

// EvalGate is mutation.eval_gate.
type EvalGate struct {
	// Threshold is the score (0 to 1) each eval case must reach; unset
	// keeps the suite's own threshold.
	Threshold *float64 `yaml:"threshold"`
	// MaxDrop is how far (0 to 1) the candidate's score may fall below
	// the baseline's recorded eval score.
	MaxDrop *float64 `yaml:"max_drop"`
	// Timeout bounds the gate on one candidate, the baseline's suite run
	// included when one is needed (0: DefaultEvalGateTimeout).
	Timeout time.Duration `yaml:"timeout"`
	// AllowTools are the operator's grant of gated tools to the suite's
	// runs (claude plugin eval --allow-tools: Bash, Write, Edit,
	// "Bash(go test:*)"), for the cases whose allowed_tools ask for them;
	// Bash then runs in Claude Code's OS sandbox (bubblewrap and socat on
	// Linux). Empty: no gated tool, as before.
	AllowTools []string `yaml:"allow_tools"`
}

// DefaultEvalGateTimeout bounds a suite run of the eval gate when
// mutation.eval_gate.timeout is not set.
const DefaultEvalGateTimeout = 4 * time.Minute

// On reports whether the gate is configured.
func (g EvalGate) On() bool { return g.Threshold != nil || g.MaxDrop != nil }

// EvalGateTimeout is the longest the eval gate may take on one candidate
// of any skill now (0: the gate is off for every skill).
func (c *Config) EvalGateTimeout() time.Duration {
	var d time.Duration
	gates := []EvalGate{c.Mutation.EvalGate}
	for _, o := range c.SkillMutation {
		if o.EvalGate != nil {
			gates = append(gates, *o.EvalGate)
		}
	}
	for _, g := range gates {
		if !g.On() {
			continue
		}
		t := g.Timeout
		if t <= 0 {
			t = DefaultEvalGateTimeout
		}
		d = max(d, t)
	}
	return d
}

// Pricing is the price table of the models, for the cost of executions
// read from their transcripts.
type Pricing struct {
	// Taken is the date (YYYY-MM-DD) the prices were taken.
	Taken string `yaml:"taken"`
	// Models maps a model name, or a prefix of names (the longest
	// matching wins), to its prices.
	Models map[string]ModelPrice `yaml:"models"`
}

// ModelPrice is what a model costs, in US dollars per million tokens.
type ModelPrice struct {
	Input      float64 `yaml:"input"`
	Output     float64 `yaml:"output"`
	CacheRead  float64 `yaml:"cache_read"`
	CacheWrite float64 `yaml:"cache_write"`
}

// Error is a configuration error located in a file.
type Error struct {
	File string
	Line int
	Key  string // dotted path, e.g. "aggregate.weights"
	Msg  string
}

// Error reads "file:line: key K: message", the form editors jump to.
func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Key != "" {
		return fmt.Sprintf("%s: key %s: %s", loc, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

// ErrInvalid is wrapped by every configuration error.
var ErrInvalid = errors.New("invalid configuration")

// Unwrap lets callers test any configuration error with errors.Is(err,
// ErrInvalid).
func (e *Error) Unwrap() error { return ErrInvalid }

// ClaudeCLI is the Claude Code CLI `sepad eval` runs: bin (its --claude
// flag), else $SEPAD_CLAUDE, else mutation.claude of the configuration
// file at path (the eval gate's too), else claude on PATH when that file
// does not load.
func ClaudeCLI(bin, path string) string {
	if bin != "" {
		return bin
	}
	if b := os.Getenv("SEPAD_CLAUDE"); b != "" {
		return b
	}
	if cfg, err := Load(path); err == nil {
		return cfg.Mutation.Claude
	}
	return "claude"
}

// Path returns the user configuration file to use: flag, then
// $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml (or
// ~/.config/sepa/config.yaml) if it exists. "" means defaults only.
func Path(flag string) string {
	if flag != "" {
		return flag
	}
	if p := os.Getenv("SEPA_CONFIG"); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	p := filepath.Join(dir, "sepa", "config.yaml")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// Load returns the defaults overridden by the file at path ("" for defaults
// only). An explicitly named file that does not exist is an error.
func Load(path string) (*Config, error) {
	c, err := Parse("max_expected.yaml (embedded)", Default, nil)
	if err != nil {
		return nil, fmt.Errorf("embedded defaults: %w", err)
	}
	if path == "" {
		return c, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err = Parse(path, b, c)
	if err != nil {
		return nil, err
	}
	c.Source = path
	return c, nil
}

// Parse decodes data (named name in errors) on top of base (nil for an empty
// config) and validates the result. base is not modified.
func Parse(name string, data []byte, base *Config) (*Config, error) {
	c := &Config{}
	if base != nil {
		*c = base.clone()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: name, Line: yamlErrLine(err), Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	lines := map[string]int{}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
			return c, c.validate(name, lines)
		}
		if err := c.splitSkills(name, root, lines); err != nil {
			return nil, err
		}
		if err := decodeNode(name, root, reflect.ValueOf(c).Elem(), "", lines); err != nil {
			return nil, err
		}
	}
	c.aliasSession()
	return c, c.validate(name, lines)
}

// Complexity returns the complexity configured for a skill name.
func (c *Config) Complexity(skill string) string {
	if cx, ok := c.Skills[skill]; ok {
		return cx
	}
	return c.DefaultComplexity
}

// LimitFor returns the max_expected row for a skill.
func (c *Config) LimitFor(skill string) (string, Limit) {
	cx := c.Complexity(skill)
	return cx, c.MaxExpected[cx]
}

func (c *Config) clone() Config {
	out := *c
	out.MaxExpected = map[string]Limit{}
	for k, v := range c.MaxExpected {
		out.MaxExpected[k] = v
	}
	out.Skills = map[string]string{}
	for k, v := range c.Skills {
		out.Skills[k] = v
	}
	out.Aggregate.Weights = append([]float64(nil), c.Aggregate.Weights...)
	out.Collector.ExtraFiles = append([]string(nil), c.Collector.ExtraFiles...)
	out.Mutation.ExtraRoots = append([]string(nil), c.Mutation.ExtraRoots...)
	out.Mutation.Mutator = append([]string(nil), c.Mutation.Mutator...)
	out.Outcome.Verify = append([]string(nil), c.Outcome.Verify...)
	out.Outcome.AfterStop.Projects = map[string][]string{}
	for k, v := range c.Outcome.AfterStop.Projects {
		out.Outcome.AfterStop.Projects[k] = append([]string(nil), v...)
	}
	out.SkillMutation = map[string]MutationOverride{}
	for k, v := range c.SkillMutation {
		out.SkillMutation[k] = v
	}
	out.SkillChecks = map[string][]*checks.Check{}
	out.SkillCheckDefs = map[string][]checks.Def{}
	for k, v := range c.SkillChecks {
		out.SkillChecks[k] = append([]*checks.Check(nil), v...)
		out.SkillCheckDefs[k] = append([]checks.Def(nil), c.SkillCheckDefs[k]...)
	}
	out.Pricing.Models = map[string]ModelPrice{}
	for k, v := range c.Pricing.Models {
		out.Pricing.Models[k] = v
	}
	return out
}
