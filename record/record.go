// Package record holds the records sepad keeps about prompts and their
// runs: a scored execution, a skill (one prompt file) and its versions,
// a decision, a session's summary, the read positions of followed files,
// a quarantined line, and the token sums of a version. Package store
// persists them (docs/store.md: their JSON is the stored form); every
// other package reads and builds them without a database. Pure: no I/O.
package record

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/sepad/sepad/activation"
	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/integrity"
	"github.com/sepad/sepad/tracevalue"
)

// Offset is the committed read position of one followed file.
type Offset struct {
	File        string `json:"file"`
	Offset      int64  `json:"offset"`
	Dev         uint64 `json:"dev"`
	Ino         uint64 `json:"ino"`
	Fingerprint string `json:"fingerprint"`
	Size        int64  `json:"size"`
	Lines       int64  `json:"lines"`
}

// TranscriptOffset is the read position of one transcript file.
type TranscriptOffset struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	// LastMessage is the id of the last assistant message counted.
	LastMessage string `json:"last_message,omitempty"`
}

// Scored is an execution with its score, as stored.
type Scored struct {
	Exec   execution.Execution `json:"execution"`
	Result fitness.Result      `json:"result"`
	// Assigned by the store's Commit:
	SkillKey string    `json:"skill_key"`
	Version  string    `json:"version"`
	Seq      uint64    `json:"seq"`
	Stored   time.Time `json:"stored"`
	// Value is the value of the run (how much it would teach), measured
	// against its skill's previous executions (package tracevalue) by
	// scoring.Novelty before the commit; Vector is the execution's
	// lexical vector it was measured with, which the store keeps for the
	// next executions' novelty but not in the record. Integrity is what
	// its final answer claims against what its calls show (package
	// integrity), checked before the commit too. Value and Integrity are
	// recorded beside the score, never part of it.
	Value     *tracevalue.Value  `json:"value,omitempty"`
	Integrity *integrity.Report  `json:"integrity,omitempty"`
	Vector    *tracevalue.Vector `json:"-"`
}

// QuarantineEntry is a line that could not be used.
type QuarantineEntry struct {
	Seq    uint64    `json:"seq"`
	File   string    `json:"file"`
	Offset int64     `json:"offset"`
	Raw    []byte    `json:"raw"`
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
}

// Skill is one prompt file (or project-qualified name) being measured.
type Skill struct {
	Key     string `json:"key"`
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Project string `json:"project,omitempty"`
	Path    string `json:"path,omitempty"`
	// Current is the hash of the version in force (last seen or attributed).
	Current    string    `json:"current,omitempty"`
	Executions int       `json:"executions"`
	LastSeen   time.Time `json:"last_seen,omitempty"`
	// VersionCount numbers versions v1, v2, … in order of first sight.
	VersionCount int       `json:"version_count"`
	Versions     []Version `json:"versions,omitempty"`
	// State is the mutation engine's state blob (filled by the store's
	// Skill and Skills; not stored in the skill record).
	State []byte `json:"-"`
}

// Version is one content of a skill's prompt file.
type Version struct {
	SkillKey     string    `json:"skill_key"`
	Hash         string    `json:"hash"`
	Seq          int       `json:"seq"`
	ContentKnown bool      `json:"content_known"`
	Content      []byte    `json:"content,omitempty"`
	Parent       string    `json:"parent,omitempty"`
	FirstSeen    time.Time `json:"first_seen"`
	// Source: edit, proposal, rollback or observed (attributed by an
	// execution before its content was seen).
	Source string `json:"source"`
	// Aggregate under the current rubric (filled by the store's Skills
	// and Versions).
	Aggregate aggregate.Aggregate `json:"aggregate"`
	// FailRate is the fraction of tool calls that failed, over all the
	// version's executions.
	FailRate float64 `json:"fail_rate"`
	// Claims counts the version's scored executions whose answer claims
	// something the calls can tell, and OverClaims those whose answer
	// claims more than the calls show (package integrity), of
	// Aggregate.N.
	Claims     int `json:"claims"`
	OverClaims int `json:"over_claims"`
	// Tokens are the version's token and cost sums (filled like
	// Aggregate; nil when no transcript was read).
	Tokens *Tokens `json:"tokens,omitempty"`
	// Models count the version's scored executions by the model that
	// answered them (execution.Usage.Model), most runs first; nil when no
	// transcript was read (filled like Aggregate).
	Models []ModelRuns `json:"models,omitempty"`
	// Description names the version of the description in the content's
	// front matter (activation.DescriptionHash; "" when the content is
	// not known). Activation counts how the version's executions were
	// invoked (filled like Aggregate; nil when none was counted).
	Description string             `json:"description,omitempty"`
	Activation  *activation.Counts `json:"activation,omitempty"`
}

// Decision is a stored decision: the mutation package owns its payload.
type Decision struct {
	SkillKey string          `json:"skill_key"`
	Seq      uint64          `json:"seq"`
	Time     time.Time       `json:"time"`
	Payload  json.RawMessage `json:"payload"`
}

// Session is one Claude Code session seen in the spool.
type Session struct {
	ID         string    `json:"id"`
	Project    string    `json:"project,omitempty"`
	First      time.Time `json:"first,omitempty"`
	Last       time.Time `json:"last,omitempty"`
	Executions int       `json:"executions"`
	Skills     []string  `json:"skills,omitempty"`
}

// Filter selects executions.
type Filter struct {
	SkillKey string
	Skill    string // name, any project
	Version  string // hash prefix
	Grade    fitness.Grade
	Since    time.Time
	// MaxSeq, when set, skips executions committed after it (a replayable
	// view "as of" one execution).
	MaxSeq uint64
	Limit  int
}

// Match reports whether an execution passes the filter (the test
// store.Executions applies), for callers that walk the executions
// themselves.
func (f *Filter) Match(s *Scored) bool {
	if f.MaxSeq > 0 && s.Seq > f.MaxSeq {
		return false
	}
	if f.SkillKey != "" && s.SkillKey != f.SkillKey {
		return false
	}
	if f.Skill != "" && s.Exec.Skill != f.Skill {
		return false
	}
	if f.Version != "" && !strings.HasPrefix(s.Version, f.Version) {
		return false
	}
	if f.Grade != "" && s.Result.Grade != f.Grade {
		return false
	}
	if !f.Since.IsZero() {
		t := ExecTime(&s.Exec)
		if t.IsZero() {
			t = s.Stored
		}
		if t.Before(f.Since) {
			return false
		}
	}
	return true
}

// ExecTime is when an execution ran: its end, else its start.
func ExecTime(x *execution.Execution) time.Time {
	if !x.EndedAt.IsZero() {
		return x.EndedAt
	}
	return x.StartedAt
}
