package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Validation of a decoded Config: every error names the file, the line
// and the dotted key (lines come from the decoder, decode.go).

// validate checks a decoded Config as a whole; file and lines (each
// dotted key's line, from decodeNode) locate every error it returns.
func (c *Config) validate(file string, lines map[string]int) error {
	bad := func(key, format string, a ...any) error {
		line := lines[key]
		for k := key; line == 0 && strings.Contains(k, "."); {
			k = k[:strings.LastIndex(k, ".")]
			line = lines[k]
		}
		return &Error{File: file, Line: line, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	for _, cx := range Complexities {
		l, ok := c.MaxExpected[cx]
		if !ok {
			return bad("max_expected", "missing complexity %q", cx)
		}
		if l.Time <= 0 {
			return bad("max_expected."+cx+".time", "must be a positive duration, got %v", l.Time)
		}
		if l.Tools <= 0 {
			return bad("max_expected."+cx+".tools", "must be a positive count, got %d", l.Tools)
		}
		if l.Tokens < 0 {
			return bad("max_expected."+cx+".tokens", "must be 0 (off) or a positive count, got %d", l.Tokens)
		}
	}
	for k := range c.MaxExpected {
		if !isComplexity(k) {
			return bad("max_expected."+k, "unknown complexity (want simple, medium or complex)")
		}
	}
	if !isComplexity(c.DefaultComplexity) {
		return bad("default_complexity", "%q is not simple, medium or complex", c.DefaultComplexity)
	}
	for name, cx := range c.Skills {
		if !isComplexity(cx) {
			return bad("skills."+name, "%q is not simple, medium or complex", cx)
		}
	}
	if len(c.Aggregate.Weights) == 0 {
		return bad("aggregate.weights", "needs at least one weight")
	}
	for _, w := range c.Aggregate.Weights {
		if !(w > 0) {
			return bad("aggregate.weights", "weights must be positive, got %v", w)
		}
	}
	if c.Aggregate.Trim < 0 || c.Aggregate.Trim >= 0.5 {
		return bad("aggregate.trim", "must be in [0, 0.5), got %v", c.Aggregate.Trim)
	}
	if c.Aggregate.MinSamples < 1 {
		return bad("aggregate.min_samples", "must be at least 1, got %d", c.Aggregate.MinSamples)
	}
	col := c.Collector
	switch {
	case col.IdleTimeout <= 0:
		return bad("collector.idle_timeout", "must be a positive duration")
	case col.BatchLines < 1:
		return bad("collector.batch_lines", "must be at least 1")
	case col.BatchInterval <= 0:
		return bad("collector.batch_interval", "must be a positive duration")
	case col.RotateBytes < 4096:
		return bad("collector.rotate_bytes", "must be at least 4096, got %d", col.RotateBytes)
	case col.QuarantineMax < 1:
		return bad("collector.quarantine_max", "must be at least 1")
	case col.EventNames < 1:
		return bad("collector.event_names", "must be at least 1")
	case col.Retention < 0:
		return bad("collector.retention", "must be a duration, or 0s to keep everything")
	}
	for _, f := range col.ExtraFiles {
		if !filepath.IsAbs(f) {
			return bad("collector.extra_files", "%q is not an absolute path", f)
		}
	}
	if c.Hook.MaxField < 1024 {
		return bad("hook.max_field", "must be at least 1024 bytes, got %d", c.Hook.MaxField)
	}
	m := c.Mutation
	if err := validateMutation(m, "mutation.", bad); err != nil {
		return err
	}
	switch {
	case m.MutatorTimeout <= 0:
		return bad("mutation.mutator_timeout", "must be a positive duration")
	case m.EditBudget <= 0 || m.EditBudget > 1:
		return bad("mutation.edit_budget", "must be a share of the text above 0 and at most 1, got %g", m.EditBudget)
	case m.Claude == "":
		return bad("mutation.claude", "must name the claude command (a name on PATH or a path)")
	}
	if err := c.validateSkills(bad); err != nil {
		return err
	}
	if err := c.Pricing.validate(bad); err != nil {
		return err
	}
	for _, w := range []struct {
		key string
		v   float64
	}{{"scoring.label_weight", c.Scoring.LabelWeight}, {"scoring.checks_weight", c.Scoring.ChecksWeight}, {"scoring.outcome_weight", c.Scoring.OutcomeWeight}} {
		if !(w.v >= 0 && w.v <= 1) {
			return bad(w.key, "must be a nominal weight in [0, 1] (the five SEPA signals weigh 1 together), got %v", w.v)
		}
	}
	if err := validatePatterns(c.Outcome.Verify, "outcome.verify", bad); err != nil {
		return err
	}
	if err := c.Outcome.AfterStop.validate(bad); err != nil {
		return err
	}
	if err := c.Team.validate(bad); err != nil {
		return err
	}
	if ep := c.Otel.Endpoint; ep != "" {
		if u, err := url.Parse(ep); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return bad("otel.endpoint", "%q is not an OTLP/HTTP URL such as http://localhost:4318", ep)
		}
	}
	home, _ := os.UserHomeDir()
	for _, r := range m.ExtraRoots {
		switch {
		case !filepath.IsAbs(r):
			return bad("mutation.extra_roots", "%q is not an absolute path", r)
		case filepath.Clean(r) == filepath.Dir(filepath.Clean(r)):
			return bad("mutation.extra_roots", "%q is the root of the file system: name project directories", r)
		case home != "" && filepath.Clean(r) == filepath.Clean(home):
			return bad("mutation.extra_roots", "%q is your home directory: name project directories (~/.claude is always a root)", r)
		}
	}
	return nil
}

func isComplexity(s string) bool {
	for _, c := range Complexities {
		if s == c {
			return true
		}
	}
	return false
}

// validate checks the price table; bad builds the located error.
func (p *Pricing) validate(bad func(key, format string, a ...any) error) error {
	if _, err := time.Parse("2006-01-02", p.Taken); err != nil {
		return bad("pricing.taken", "%q is not a date such as 2025-11-24", p.Taken)
	}
	for name, m := range p.Models {
		if strings.TrimSpace(name) == "" {
			return bad("pricing.models", "a model name is empty")
		}
		for _, f := range []struct {
			key string
			v   float64
		}{{"input", m.Input}, {"output", m.Output}, {"cache_read", m.CacheRead}, {"cache_write", m.CacheWrite}} {
			if !(f.v >= 0) || f.v > 1e6 {
				return bad("pricing.models."+name+"."+f.key, "must be a price in dollars per million tokens (0 or more), got %v", f.v)
			}
		}
	}
	return nil
}

// validate checks team.*: the connection string's form (the driver reads
// it at connection time), the password file's path and the person.
func (t *Team) validate(bad func(key, format string, a ...any) error) error {
	if pg := strings.TrimSpace(t.Postgres); pg != "" {
		isURL := strings.HasPrefix(pg, "postgres://") || strings.HasPrefix(pg, "postgresql://")
		if !isURL && !strings.Contains(pg, "=") {
			return bad("team.postgres", "%q is not a connection string: want postgres://user@host/db or key=value pairs such as \"host=db user=sepad dbname=sepad\"", pg)
		}
	}
	if t.PasswordFile != "" && !filepath.IsAbs(t.PasswordFile) {
		return bad("team.password_file", "%q is not an absolute path", t.PasswordFile)
	}
	if t.PasswordFile != "" && strings.TrimSpace(t.Postgres) == "" {
		return bad("team.password_file", "is set but team.postgres is not")
	}
	if strings.TrimSpace(t.Person) == "" {
		return bad("team.person", "must be auto, off or a name")
	}
	return nil
}

// validate checks outcome.after_stop: each project an absolute path (or
// ~/…) that is not the file system's root or the home directory, each
// command a non-empty list of words; the bounds positive.
func (a AfterStop) validate(bad func(key, format string, a ...any) error) error {
	switch {
	case a.Timeout <= 0:
		return bad("outcome.after_stop.timeout", "must be a positive duration (a run is killed at it)")
	case a.MaxOutput < 1024:
		return bad("outcome.after_stop.max_output", "must be at least 1024 bytes, got %d", a.MaxOutput)
	}
	home, _ := os.UserHomeDir()
	for p, cmd := range a.Projects {
		key := "outcome.after_stop.projects." + p
		dir := expandHome(p)
		switch {
		case !filepath.IsAbs(dir):
			return bad(key, "%q is not an absolute path (nor ~/…): name the project's directory", p)
		case dir == filepath.Dir(dir):
			return bad(key, "%q is the root of the file system: name a project's directory", p)
		case home != "" && dir == filepath.Clean(home):
			return bad(key, "%q is the home directory: name a project's directory", p)
		case len(cmd) == 0 || strings.TrimSpace(cmd[0]) == "":
			return bad(key, "the command is empty: a list of words such as [go, test, ./...]")
		}
	}
	return nil
}
