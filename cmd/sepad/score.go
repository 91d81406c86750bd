package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/transcript"
)

func init() {
	register("score", "score the executions in JSONL hook logs, offline", runScore)
}

// scoredExecution is one row of `sepad score --json`. The field names are a
// stable interface: other tools parse them (docs/executions.md).
type scoredExecution struct {
	ID           string           `json:"id"`
	SessionID    string           `json:"session_id"`
	AgentID      string           `json:"agent_id"`
	Skill        string           `json:"skill"`
	SkillPath    string           `json:"skill_path"`
	Project      string           `json:"project"`
	SkillVersion string           `json:"skill_version"`
	StartedAt    *time.Time       `json:"started_at"`
	EndedAt      *time.Time       `json:"ended_at"`
	DurationMS   *int64           `json:"duration_ms"`
	ToolCalls    int              `json:"tool_calls"`
	ToolFailures int              `json:"tool_failures"`
	Errors       int              `json:"errors"`
	Complexity   string           `json:"complexity"`
	Complete     bool             `json:"complete"`
	Scored       bool             `json:"scored"`
	Score        *float64         `json:"score"`
	Grade        string           `json:"grade"`
	Signals      []fitness.Signal `json:"signals"`
	// Added for the real-client suite; fields are only ever added.
	Kind        string `json:"kind"`
	Retries     int    `json:"retries"`
	Corrections int    `json:"corrections"`
	// The person's acceptances and the repair turns after a correction
	// (docs/executions.md, "The person's verdict").
	Acceptances int    `json:"acceptances,omitempty"`
	Repairs     int    `json:"repairs,omitempty"`
	HasOutput   bool   `json:"has_output"`
	StopError   string `json:"stop_error,omitempty"`
	// Read from the session transcript (issue 16), when it is readable.
	Usage       *execution.Usage `json:"usage,omitempty"`
	UsageReason string           `json:"usage_reason,omitempty"`
	// The Claude Code plugin whose prompt this is (issue 23).
	Plugin        string `json:"plugin,omitempty"`
	PluginVersion string `json:"plugin_version,omitempty"`
	// The skill's own shell lines (PreSkillShellCommand, issue 37): not
	// tool calls.
	ShellLines int `json:"shell_lines,omitempty"`
	// Calls the permission layer refused, and compactions while it ran
	// (issue 37 item 5).
	Denied      int `json:"denied,omitempty"`
	Compactions int `json:"compactions,omitempty"`
	// Claude Code's prompt_id of the prompt it started in (>= 2.1.196).
	PromptID string `json:"prompt_id,omitempty"`
}

type skippedLine struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

type scoreReport struct {
	RubricVersion string            `json:"rubric_version"`
	Executions    []scoredExecution `json:"executions"`
	Skipped       []skippedLine     `json:"skipped"`
}

func runScore(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", stderr)
	asJSON := fs.Bool("json", false, "print one JSON document")
	explain := fs.Bool("explain", false, "print every signal of every execution")
	noTranscripts := fs.Bool("no-transcripts", false, "do not read the session transcripts (tokens, cost, calls refused before any hook)")
	cfgPath := fs.String("config", "", "configuration file (default $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml)")
	failUnder := fs.String("fail-under", "", "exit 1 when a skill's last version grades below GRADE or scores below SCORE, 3 when nothing is graded (gate.go)")
	gateSkill := fs.String("skill", "", "gate only this skill (a name, PROJECT#name or the prompt file's path)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad score [--json] [--explain] [--config FILE] FILE... (- for stdin)")
		fs.PrintDefaults()
	}
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErrorf("score needs at least one FILE (- for stdin)")
	}
	g, err := parseGate(*failUnder)
	if err != nil {
		return err
	}
	if *gateSkill != "" && g == nil {
		return usageErrorf("--skill selects what --fail-under gates: give --fail-under too")
	}
	cfg, err := config.Load(config.Path(*cfgPath))
	if err != nil {
		return err
	}
	tr := scoreTracker(cfg)
	if *noTranscripts {
		tr = nil
	}
	rep, err := scoreFiles(files, stdin, cfg, tr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		printScoreTable(stdout, rep, *explain)
	}
	if err != nil || g == nil {
		return err
	}
	return scoreGate(g, rep, *gateSkill, aggregateOptions(cfg))
}

// scoreFiles reads every file in order, groups its events and scores the
// executions. Unreadable files are an error; malformed lines are skipped and
// reported.
func scoreFiles(files []string, stdin io.Reader, cfg *config.Config, tr *transcript.Tracker) (*scoreReport, error) {
	g := execution.NewGrouper(execution.Options{ProjectOf: projectDir})
	rep := &scoreReport{RubricVersion: rubricOf(cfg), Executions: []scoredExecution{}, Skipped: []skippedLine{}}
	emit := func(xs []execution.Execution) {
		for i := range xs {
			if tr != nil {
				tr.Enrich(&xs[i], time.Now, func(time.Duration) {})
			}
			rep.Executions = append(rep.Executions, scoreOne(&xs[i], cfg))
		}
	}
	for _, name := range files {
		var r io.Reader
		if name == "-" {
			r = stdin
		} else {
			f, err := os.Open(name)
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", name, err)
			}
			defer f.Close()
			r = f
		}
		br := bufio.NewReaderSize(r, 64<<10)
		for n := 1; ; n++ {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				if len(bytes.TrimSpace(line)) == 0 {
					// Blank lines are not events; nothing is lost.
				} else if ev, perr := event.ParseLine(line); perr != nil {
					rep.Skipped = append(rep.Skipped, skippedLine{File: name, Line: n, Reason: strings.TrimPrefix(perr.Error(), event.ErrMalformed.Error()+": ")})
				} else {
					emit(g.Add(&ev))
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read %s line %d: %w", name, n, err)
			}
		}
	}
	emit(g.Flush())
	return rep, nil
}

// scoreOne scores one execution as the daemon does: the limits of its
// skill's complexity, its skill's checks (file checks read the project
// named in the events, where it exists on this machine).
func scoreOne(x *execution.Execution, cfg *config.Config) scoredExecution {
	cx, _ := cfg.LimitFor(x.Skill)
	res := scoreExecution(cfg, weightsOf(cfg), x)
	out := scoredExecution{
		ID: x.ID, SessionID: x.SessionID, PromptID: x.PromptID, AgentID: x.AgentID, Skill: x.Skill, SkillPath: x.SkillPath,
		Project: x.Project, SkillVersion: x.SkillVersion, Plugin: x.Plugin, PluginVersion: x.PluginVersion,
		ToolCalls: len(x.Calls), ToolFailures: x.Failures(), Errors: res.Errors.Total,
		Complexity: cx, Complete: x.Complete, Scored: res.Scored, Grade: string(res.Grade), Signals: res.Signals,
		Kind: x.Kind, Retries: x.Retries(), Corrections: x.Corrections, Acceptances: x.Acceptances, Repairs: x.Repairs, HasOutput: x.HasOutput, StopError: x.StopError,
		Usage: x.Usage, UsageReason: x.UsageReason, ShellLines: len(x.ShellLines),
		Denied: x.Denials(), Compactions: len(x.Compactions),
	}
	if !x.StartedAt.IsZero() {
		t := x.StartedAt
		out.StartedAt = &t
	}
	if !x.EndedAt.IsZero() {
		t := x.EndedAt
		out.EndedAt = &t
	}
	if d, ok := x.Duration(); ok {
		out.DurationMS = &d
	}
	if res.Scored {
		s := res.Score
		out.Score = &s
	}
	return out
}

func printScoreTable(w io.Writer, rep *scoreReport, explain bool) {
	tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EXECUTION\tSKILL\tPROJECT\tCALLS\tFAILED\tERRORS\tTOOLS/35\tOUTPUT/25\tEFFIC/20\tERRRATE/15\tSTRUCT/5\tOUTCOME\tSCORE\tGRADE")
	cols := []string{fitness.SignalToolSuccess, fitness.SignalOutput, fitness.SignalEfficiency, fitness.SignalErrorRate, fitness.SignalStructure, fitness.SignalOutcome}
	for _, x := range rep.Executions {
		skill := x.Skill
		if !x.Complete {
			skill += " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t", x.ID, skill, shortProject(x.Project), x.ToolCalls, x.ToolFailures, x.Errors)
		// One cell per column, by signal name: the points each signal
		// gave ("-" when absent; label and checks only in --explain).
		for _, name := range cols {
			cell := "-"
			for _, s := range x.Signals {
				if s.Signal == name && s.Present {
					cell = fmt.Sprintf("%.2f", s.Contribution)
				}
			}
			fmt.Fprint(tw, cell+"\t")
		}
		if x.Scored {
			fmt.Fprintf(tw, "%.2f\t%s\n", *x.Score, x.Grade)
		} else {
			fmt.Fprint(tw, "unscored\t-\n")
		}
	}
	tw.Flush()
	if explain {
		for _, x := range rep.Executions {
			fmt.Fprintf(w, "\n%s %s", x.ID, x.Skill)
			if x.Scored {
				fmt.Fprintf(w, ": %.2f %s (%s)", *x.Score, x.Grade, fitness.Grade(x.Grade).Advice())
			}
			fmt.Fprintln(w)
			for _, s := range x.Signals {
				if !s.Present {
					fmt.Fprintf(w, "  %-18s absent                      %s\n", s.Signal, s.Detail)
					continue
				}
				fmt.Fprintf(w, "  %-18s %5.2f × %4.2f = %6.2f pts  %s\n", s.Signal, s.SubScore, s.EffectiveWeight, s.Contribution, s.Detail)
			}
		}
	}
	fmt.Fprintf(w, "\n%d executions, rubric %s", len(rep.Executions), rep.RubricVersion)
	if len(rep.Skipped) > 0 {
		fmt.Fprintf(w, ", %d lines skipped:\n", len(rep.Skipped))
		for _, s := range rep.Skipped {
			fmt.Fprintf(w, "  %s:%d: %s\n", s.File, s.Line, s.Reason)
		}
	} else {
		fmt.Fprintln(w)
	}
}

func shortProject(p string) string {
	if p == "" {
		return "-"
	}
	return filepath.Base(p)
}

// projectDir returns the repo root above cwd when it exists on this machine
// (a directory holding .git), else cwd itself.
func projectDir(cwd string) string {
	for d := filepath.Clean(cwd); ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return cwd
		}
		d = parent
	}
}
