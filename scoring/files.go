package scoring

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/transcript"
)

// Execution is one row of `sepad score --json`. The field names are a
// stable interface: other tools parse them (docs/executions.md).
type Execution struct {
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
	// Who invoked a skill (claude: the Skill tool; user: typed), and
	// whether a typed one was a missed activation (docs/activation.md).
	InvokedBy        string `json:"invoked_by,omitempty"`
	MissedActivation bool   `json:"missed_activation,omitempty"`
}

// Skipped is a line of a log that is not an event.
type Skipped struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// Report is what `sepad score` read: the executions in order and the
// lines skipped.
type Report struct {
	RubricVersion string      `json:"rubric_version"`
	Executions    []Execution `json:"executions"`
	Skipped       []Skipped   `json:"skipped"`
}

// Files reads every file in order ("-" is stdin), groups its events and
// scores the executions as the daemon does, each after its part of its
// session transcript is read (tr; nil reads none). Unreadable files are
// an error; malformed lines are skipped and reported.
func (s *Scorer) Files(files []string, stdin io.Reader, tr *transcript.Tracker) (*Report, error) {
	g := execution.NewGrouper(execution.Options{ProjectOf: ProjectDir})
	rep := &Report{RubricVersion: s.Rubric(), Executions: []Execution{}, Skipped: []Skipped{}}
	emit := func(xs []execution.Execution) {
		for i := range xs {
			if tr != nil {
				tr.Enrich(&xs[i], time.Now, func(time.Duration) {})
			}
			rep.Executions = append(rep.Executions, s.row(&xs[i]))
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
					rep.Skipped = append(rep.Skipped, Skipped{File: name, Line: n, Reason: strings.TrimPrefix(perr.Error(), event.ErrMalformed.Error()+": ")})
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

// row scores one execution as the daemon does: the limits of its
// skill's complexity, its skill's checks (file checks read the project
// named in the events, where it exists on this machine).
func (s *Scorer) row(x *execution.Execution) Execution {
	cx, _ := s.Config().LimitFor(x.Skill)
	res := s.Result(x)
	out := Execution{
		ID: x.ID, SessionID: x.SessionID, PromptID: x.PromptID, AgentID: x.AgentID, Skill: x.Skill, SkillPath: x.SkillPath,
		Project: x.Project, SkillVersion: x.SkillVersion, Plugin: x.Plugin, PluginVersion: x.PluginVersion,
		ToolCalls: len(x.Calls), ToolFailures: x.Failures(), Errors: res.Errors.Total,
		Complexity: cx, Complete: x.Complete, Scored: res.Scored, Grade: string(res.Grade), Signals: res.Signals,
		Kind: x.Kind, Retries: x.Retries(), Corrections: x.Corrections, Acceptances: x.Acceptances, Repairs: x.Repairs, HasOutput: x.HasOutput, StopError: x.StopError,
		Usage: x.Usage, UsageReason: x.UsageReason, ShellLines: len(x.ShellLines),
		Denied: x.Denials(), Compactions: len(x.Compactions),
		InvokedBy: x.InvokedBy, MissedActivation: x.MissedActivation,
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
		v := res.Score
		out.Score = &v
	}
	return out
}

// ProjectDir returns the repo root above cwd when it exists on this
// machine (a directory holding .git), else cwd itself.
func ProjectDir(cwd string) string {
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
