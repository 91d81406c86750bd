// Package evals reads the results of Claude Code's own offline evaluation
// (`claude plugin eval --json`, the same JSON as
// evals/results/<time>/aggregate-result.json) and keeps them as evidence
// for a prompt version, beside the online grade and never mixed into it
// (docs/claude-code.md, "Evals").
//
// Evidence lives in one JSONL file, $SEPA_HOME/evals.jsonl, one line per
// recorded suite run: `sepad eval` and `sepad import --claude-eval` append
// to it, the views read it.
package evals

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// FileName is the evidence file in the state directory.
const FileName = "evals.jsonl"

// ErrBadResult is wrapped by every error about an aggregate-result.json.
var ErrBadResult = errors.New("not a claude plugin eval result")

// Evidence is one recorded suite run for one version of one prompt.
type Evidence struct {
	SkillKey string `json:"skill_key"`
	Skill    string `json:"skill"`
	// Version is the prompt file's content hash (12 hex digits) the suite
	// ran against.
	Version string    `json:"version"`
	At      time.Time `json:"at"`
	// RanAt is when the suite started (the result's startedAt).
	RanAt time.Time `json:"ran_at,omitempty"`
	// Source is "sepad eval" or "import"; File the result file read.
	Source        string `json:"source"`
	File          string `json:"file,omitempty"`
	ClaudeVersion string `json:"claude_version,omitempty"`
	Plugin        string `json:"plugin,omitempty"`
	PluginVersion string `json:"plugin_version,omitempty"`
	// Threshold is the suite's pass threshold (a case passes when its
	// with-plugin score is at least this).
	Threshold float64 `json:"threshold"`
	Cases     []Case  `json:"cases"`
	// Score and PassRate are the suite's overall with-plugin figures;
	// Delta the mean difference against the no-plugin arm (nil without
	// one).
	Score    float64  `json:"score"`
	PassRate float64  `json:"pass_rate"`
	Delta    *float64 `json:"delta,omitempty"`
	// Runs is the with-plugin runs per case (the largest), CostUSD the
	// whole run's cost.
	Runs    int     `json:"runs"`
	CostUSD float64 `json:"cost_usd"`
	// Partial is set when the run stopped early (the cost ceiling, a
	// failed login), with Claude Code's reason.
	Partial       bool   `json:"partial,omitempty"`
	PartialReason string `json:"partial_reason,omitempty"`
}

// Case is one eval case's figures.
type Case struct {
	Name         string   `json:"name"`
	Runs         int      `json:"runs"`
	Score        float64  `json:"score"`
	PassRate     float64  `json:"pass_rate"`
	ScoreWithout *float64 `json:"score_without,omitempty"`
	Delta        *float64 `json:"delta,omitempty"`
	// Passed: Score reaches the suite's threshold.
	Passed bool `json:"passed"`
	// Errors counts the with-plugin runs that ended in an error.
	Errors int `json:"errors,omitempty"`
}

// Passed reports whether every case reached the threshold.
func (e *Evidence) Passed() bool {
	for _, c := range e.Cases {
		if !c.Passed {
			return false
		}
	}
	return len(e.Cases) > 0
}

// Failing names the cases below the threshold.
func (e *Evidence) Failing() []string {
	var out []string
	for _, c := range e.Cases {
		if !c.Passed {
			out = append(out, c.Name)
		}
	}
	return out
}

// Summary words the evidence for a grades line: "evals 0.92 over 4 cases
// × 3 runs, +0.31 against no skill".
func (e *Evidence) Summary() string {
	s := fmt.Sprintf("evals %.2f over %d case%s × %d run%s", e.Score, len(e.Cases), plural(len(e.Cases)), e.Runs, plural(e.Runs))
	if e.Delta != nil {
		s += fmt.Sprintf(", %+.2f against no skill", *e.Delta)
	}
	if f := e.Failing(); len(f) > 0 {
		s += ", failing " + strings.Join(f, ", ")
	}
	if e.Partial {
		s += " (partial)"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// result is the part of aggregate-result.json sepad reads.
type result struct {
	SchemaVersion *int      `json:"schemaVersion"`
	ClaudeVersion string    `json:"claudeVersion"`
	StartedAt     time.Time `json:"startedAt"`
	CostUSD       *float64  `json:"costUsd"`
	Partial       bool      `json:"partial"`
	PartialReason string    `json:"partialReason"`
	Suite         *struct {
		Threshold *float64 `json:"threshold"`
		Plugins   []struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Path    string `json:"path"`
		} `json:"plugins"`
	} `json:"suite"`
	Cases []struct {
		Name        string `json:"name"`
		RunsPerCase *int   `json:"runsPerCase"`
		Arms        struct {
			With []struct {
				Error json.RawMessage `json:"error"`
			} `json:"with"`
		} `json:"arms"`
		Aggregates *struct {
			Score        *float64 `json:"score"`
			PassRate     *float64 `json:"passRate"`
			ScoreWithout *float64 `json:"scoreWithout"`
			Delta        *float64 `json:"delta"`
		} `json:"aggregates"`
	} `json:"cases"`
	Aggregates *struct {
		OverallScore    *float64 `json:"overallScore"`
		OverallPassRate *float64 `json:"overallPassRate"`
		MeanDelta       *float64 `json:"meanDelta"`
	} `json:"aggregates"`
}

// Parse reads a `claude plugin eval --json` result (named name in
// errors). The evidence has no skill, version or time yet.
func Parse(name string, b []byte) (*Evidence, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s: %w", name, fmt.Sprintf(format, a...), ErrBadResult)
	}
	var r result
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, bad("invalid JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &te):
			return nil, bad("%s: %v", te.Field, err)
		}
		return nil, bad("%v", err)
	}
	if r.SchemaVersion == nil {
		return nil, bad("no schemaVersion")
	}
	if *r.SchemaVersion != 1 {
		return nil, bad("schemaVersion %d (sepad reads 1)", *r.SchemaVersion)
	}
	if r.Suite == nil {
		return nil, bad("no suite")
	}
	if r.Aggregates == nil || r.Aggregates.OverallScore == nil {
		return nil, bad("no aggregates.overallScore")
	}
	if len(r.Cases) == 0 {
		return nil, bad("no cases")
	}
	e := &Evidence{ClaudeVersion: r.ClaudeVersion, RanAt: r.StartedAt, Partial: r.Partial, PartialReason: r.PartialReason, Threshold: 1}
	if r.Suite.Threshold != nil {
		e.Threshold = *r.Suite.Threshold
	}
	if len(r.Suite.Plugins) > 0 {
		e.Plugin, e.PluginVersion = r.Suite.Plugins[0].Name, r.Suite.Plugins[0].Version
	}
	if r.CostUSD != nil {
		e.CostUSD = *r.CostUSD
	}
	e.Score = *r.Aggregates.OverallScore
	if p := r.Aggregates.OverallPassRate; p != nil {
		e.PassRate = *p
	}
	e.Delta = r.Aggregates.MeanDelta
	for i, c := range r.Cases {
		if c.Name == "" {
			return nil, bad("cases[%d]: no name", i)
		}
		if c.Aggregates == nil || c.Aggregates.Score == nil {
			return nil, bad("cases[%d] (%s): no aggregates.score", i, c.Name)
		}
		k := Case{Name: c.Name, Score: *c.Aggregates.Score, ScoreWithout: c.Aggregates.ScoreWithout, Delta: c.Aggregates.Delta}
		if c.Aggregates.PassRate != nil {
			k.PassRate = *c.Aggregates.PassRate
		}
		k.Runs = len(c.Arms.With)
		if c.RunsPerCase != nil && k.Runs == 0 {
			k.Runs = *c.RunsPerCase
		}
		for _, run := range c.Arms.With {
			if len(run.Error) > 0 && string(run.Error) != "null" {
				k.Errors++
			}
		}
		k.Passed = k.Score >= e.Threshold-1e-9
		e.Runs = max(e.Runs, k.Runs)
		e.Cases = append(e.Cases, k)
	}
	for _, f := range []float64{e.Score, e.PassRate, e.CostUSD, e.Threshold} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad("a figure is not a number")
		}
	}
	return e, nil
}

// Path is the evidence file of the state directory home.
func Path(home string) string { return filepath.Join(home, FileName) }

// Append records e in home's evidence file (one line, mode 0600).
func Append(home string, e Evidence) error {
	if e.SkillKey == "" || e.Version == "" {
		return errors.New("evals: evidence without a skill or a version")
	}
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(Path(home), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", Path(home), err)
	}
	return f.Close()
}

// Load reads home's evidence file, in the order recorded (none when it
// does not exist). A line that does not parse is an error naming it.
func Load(home string) ([]Evidence, error) {
	f, err := os.Open(Path(home))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return read(Path(home), f)
}

func read(name string, r io.Reader) ([]Evidence, error) {
	var out []Evidence
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e Evidence
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Stamp changes whenever evidence is added: the file's size and
// modification time ("" when there is none). Caches key on it.
func Stamp(home string) string {
	fi, err := os.Stat(Path(home))
	if err != nil {
		return ""
	}
	return strconv.FormatInt(fi.Size(), 10) + "." + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

// Latest returns, for each skill key and version, the newest evidence.
func Latest(all []Evidence) map[[2]string]*Evidence {
	m := map[[2]string]*Evidence{}
	for i := range all {
		e := &all[i]
		k := [2]string{e.SkillKey, e.Version}
		if old := m[k]; old == nil || !e.At.Before(old.At) {
			m[k] = e
		}
	}
	return m
}
