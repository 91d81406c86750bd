package query

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/outcome"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// Listing limits.
const (
	DefaultLimit = 50
	MaxLimit     = 10_000
)

// sinceSlack is how far a commit time may precede the execution's own
// time (clock steps, slow commits) when a walk newest first stops at the
// first execution committed before Since.
const sinceSlack = 10 * time.Minute

// ExecutionsRequest selects executions; the zero value lists the newest
// DefaultLimit.
type ExecutionsRequest struct {
	// Skill is a skill argument; a name in several projects lists them all.
	Skill string
	// Version is vN or N (needs Skill), or a hash prefix.
	Version string
	// Grade keeps executions with this grade.
	Grade fitness.Grade
	// Since keeps executions that ran at or after it.
	Since time.Time
	Limit int
}

// ParseLimit parses a limit: "" is def, 0 < n <= MaxLimit.
func ParseLimit(s string, def int) (int, error) {
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > MaxLimit {
		return 0, fmt.Errorf("%w: limit %q: want a number from 1 to %d", ErrBadRequest, s, MaxLimit)
	}
	return n, nil
}

// ParseSince parses a time: RFC 3339, a date (YYYY-MM-DD, local time), or
// a duration back from now ("36h", "90m", "7d").
func ParseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		if d, err := strconv.Atoi(n); err == nil && d >= 0 {
			return now.Add(-time.Duration(d) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%w: time %q: want RFC 3339 (2026-11-20T09:00:00Z), a date (2026-11-20) or a duration back from now (36h, 7d)", ErrBadRequest, s)
}

// ParseGradeArg parses a grade argument ("" for none).
func ParseGradeArg(s string) (fitness.Grade, error) {
	if s == "" {
		return fitness.Ungraded, nil
	}
	g, err := fitness.ParseGrade(s)
	if err != nil {
		return g, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return g, nil
}

// seqs maps a skill's version hashes to their sequence numbers, reading
// each skill once.
type seqs struct {
	db *store.DB
	m  map[string]map[string]int
}

func (s *seqs) of(skillKey, hash string) int {
	if s.m == nil {
		s.m = map[string]map[string]int{}
	}
	vm, ok := s.m[skillKey]
	if !ok {
		vm, _ = s.db.VersionSeqs(skillKey) // unknown: shown without a number
		s.m[skillKey] = vm
	}
	return vm[hash]
}

func execTime(s *record.Scored) time.Time {
	switch {
	case !s.Exec.EndedAt.IsZero():
		return s.Exec.EndedAt
	case !s.Exec.StartedAt.IsZero():
		return s.Exec.StartedAt
	}
	return s.Stored
}

func execRow(s *record.Scored, seq int) ExecRow {
	r := ExecRow{ID: s.Exec.ID, SessionID: s.Exec.SessionID, SkillKey: s.SkillKey, Skill: s.Exec.Skill, Display: record.DisplayName(s.Exec.Skill),
		Project: s.Exec.Project, Version: seq, Hash: s.Version, Time: execTime(s).UTC(),
		Calls: len(s.Exec.Calls), Failed: s.Exec.Failures(), Complete: s.Exec.Complete, Grade: string(s.Result.Grade),
		Usage: s.Exec.Usage, UsageReason: s.Exec.UsageReason}
	if d, ok := s.Exec.Duration(); ok {
		r.DurationMS = &d
	}
	if s.Result.Scored {
		r.Score = ptr(s.Result.Score)
	}
	return r
}

// matchVersion returns the versions of sk that arg names: vN or N by
// sequence number, else by hash prefix.
func matchVersion(vs []record.Version, arg string) []record.Version {
	if n, err := strconv.Atoi(strings.TrimPrefix(arg, "v")); err == nil {
		for _, v := range vs {
			if v.Seq == n {
				return []record.Version{v}
			}
		}
		return nil
	}
	var out []record.Version
	for _, v := range vs {
		if strings.HasPrefix(v.Hash, arg) {
			out = append(out, v)
		}
	}
	return out
}

func isSeqArg(arg string) bool {
	_, err := strconv.Atoi(strings.TrimPrefix(arg, "v"))
	return err == nil
}

// ListExecutions lists the most recently recorded executions that match,
// ordered by when they ran, newest first. With a Skill it walks
// only that skill's version indexes; without, the global index.
func ListExecutions(db *store.DB, r ExecutionsRequest) (*Executions, error) {
	if r.Limit <= 0 {
		r.Limit = DefaultLimit
	}
	out := &Executions{Limit: r.Limit, Executions: []ExecRow{}}
	f := rowFilter{grade: r.Grade, since: r.Since}
	sq := &seqs{db: db}
	if r.Skill == "" {
		if r.Version != "" && isSeqArg(r.Version) {
			return nil, fmt.Errorf("%w: version %q by number needs a skill", ErrBadRequest, r.Version)
		}
		f.version = r.Version
		err := walkRows(db, "", "", r.Limit, f, sq.of, func(row *ExecRow, _ uint64) bool {
			out.Executions = append(out.Executions, *row)
			return len(out.Executions) < r.Limit
		})
		byRunTime(out.Executions)
		return out, err
	}
	ss, err := resolveAll(db, r.Skill)
	if err != nil {
		return nil, err
	}
	full, err := loadSkills(db, ss)
	if err != nil {
		return nil, err
	}
	var rows []ExecRow
	var seqOf []uint64
	for i := range full {
		vs := full[i].Versions
		if r.Version != "" {
			vs = matchVersion(vs, r.Version)
		}
		for _, v := range vs {
			n := 0
			err := walkRows(db, full[i].Key, v.Hash, r.Limit, f, sq.of, func(row *ExecRow, seq uint64) bool {
				rows = append(rows, *row)
				seqOf = append(seqOf, seq)
				n++
				return n < r.Limit
			})
			if err != nil {
				return nil, err
			}
		}
	}
	if r.Version != "" && len(rows) == 0 && !anyVersion(full, r.Version) {
		return nil, fmt.Errorf("no version %q of %s: %w", r.Version, r.Skill, ErrNotFound)
	}
	out.Executions = newestFirst(rows, seqOf, r.Limit)
	return out, nil
}

func anyVersion(ss []record.Skill, arg string) bool {
	for i := range ss {
		if len(matchVersion(ss[i].Versions, arg)) > 0 {
			return true
		}
	}
	return false
}

// newestFirst keeps the limit most recently recorded rows (highest commit
// sequence) and orders them by when they ran, newest first.
func newestFirst(rows []ExecRow, seq []uint64, limit int) []ExecRow {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return seq[idx[a]] > seq[idx[b]] })
	idx = idx[:min(limit, len(idx))]
	sort.SliceStable(idx, func(a, b int) bool { return rows[idx[a]].Time.After(rows[idx[b]].Time) })
	out := make([]ExecRow, len(idx))
	for k, i := range idx {
		out[k] = rows[i]
	}
	return out
}

// byRunTime orders a page newest first by when the executions ran (the
// page itself holds the most recently recorded ones).
func byRunTime(rows []ExecRow) {
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Time.After(rows[b].Time) })
}

// HistoryRequest selects a skill's history.
type HistoryRequest struct {
	Skill string
	Limit int
}

// SkillHistory returns one skill's most recently recorded executions
// across its versions, grouped per version (newest version first) and
// newest first within each, with its versions.
func SkillHistory(db *store.DB, r HistoryRequest) (*History, error) {
	if r.Limit <= 0 {
		r.Limit = DefaultLimit
	}
	sk, rows, err := oneSkill(db, r.Skill)
	if err != nil {
		return nil, err
	}
	AttachFiles(db, rows)
	if err := AttachCompared(db, sk.Key, rows); err != nil {
		return nil, err
	}
	h := &History{Skill: refOf(sk), Versions: rows, Limit: r.Limit, Total: sk.Executions}
	var ex []ExecRow
	var seqOf []uint64
	sq := &seqs{db: db}
	for _, v := range sk.Versions {
		// Count what is still stored (the index's keys only): after a
		// prune, Total counts executions that are gone.
		err := db.WalkExecutionIDs(sk.Key, v.Hash, 4096, func(string, uint64) bool { h.Stored++; return true })
		if err != nil {
			return nil, err
		}
		n := 0
		err = walkRows(db, sk.Key, v.Hash, r.Limit, rowFilter{}, sq.of, func(row *ExecRow, seq uint64) bool {
			ex = append(ex, *row)
			seqOf = append(seqOf, seq)
			n++
			return n < r.Limit
		})
		if err != nil {
			return nil, err
		}
	}
	h.Executions = newestFirst(ex, seqOf, r.Limit)
	// Per version (newest version first), each newest first.
	sort.SliceStable(h.Executions, func(a, b int) bool { return h.Executions[a].Version > h.Executions[b].Version })
	return h, nil
}

// MaxIDBytes bounds an execution ID argument.
const MaxIDBytes = 200

// ExplainExecution explains one execution by ID (or a unique prefix of at
// least 4 characters).
func ExplainExecution(db *store.DB, id string) (*Explain, error) {
	if err := validID(id); err != nil {
		return nil, err
	}
	s, err := db.Execution(id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, &NotFoundError{Msg: fmt.Sprintf("no execution %q", id)}
	}
	if err != nil {
		if strings.Contains(err.Error(), "ambiguous") {
			return nil, fmt.Errorf("%w: %v: give more of it", ErrBadRequest, err)
		}
		return nil, err
	}
	x := &s.Exec
	got, err := db.SkillsByKey([]string{s.SkillKey})
	if err != nil {
		return nil, err
	}
	o := db.AggregateOptions()
	var ver GradeRow
	if len(got) == 1 {
		for _, r := range versionRows(&got[0]) {
			if r.Hash == s.Version {
				ver = r
			}
		}
	}
	e := &Explain{Execution: execRow(s, ver.Version), AgentID: x.AgentID, Prompt: x.Prompt, StopError: x.StopError,
		Events: x.Events, Calls: make([]CallRow, 0, len(x.Calls)), Value: s.Value, Integrity: s.Integrity, Origin: x.Origin}
	if !x.StartedAt.IsZero() {
		e.StartedAt = ptr(x.StartedAt.UTC())
	}
	if !x.EndedAt.IsZero() {
		e.EndedAt = ptr(x.EndedAt.UTC())
	}
	for i := range x.Calls {
		e.Calls = append(e.Calls, callRow(i, &x.Calls[i]))
	}
	e.Compactions = append([]execution.Compaction{}, x.Compactions...)
	e.ShellLines = make([]ShellLineRow, 0, len(x.ShellLines))
	for i, l := range x.ShellLines {
		r := ShellLineRow{Index: i, Tool: l.Tool, Command: l.Command, InvokedBy: l.InvokedBy}
		if !l.At.IsZero() {
			r.At = ptr(l.At.UTC())
		}
		e.ShellLines = append(e.ShellLines, r)
	}
	res := &s.Result
	// The outcome is read again from the stored execution (results do
	// not keep it), with the default runners, for results of the rules
	// that scored it.
	if rep := res.Outcome; rep == nil && fitness.SameRules(res.RubricVersion) {
		if rep = outcome.Analyze(x, nil); rep.Any() {
			res.Outcome = rep
		}
	}
	if res.Outcome != nil {
		ov := &OutcomeView{Report: res.Outcome, Words: res.Outcome.Words(), RunWords: []string{}}
		for _, r := range res.Outcome.Runs {
			ov.RunWords = append(ov.RunWords, outcome.RunWords(r))
		}
		e.Outcome = ov
	}
	e.Score = ScoreView{Scored: res.Scored, Grade: string(res.Grade), Advice: res.Grade.Advice(),
		RubricVersion: res.RubricVersion, Signals: res.Signals, Errors: res.Errors}
	if e.Score.Signals == nil {
		e.Score.Signals = []fitness.Signal{}
	}
	if res.Scored {
		e.Score.Score = ptr(res.Score)
	} else {
		e.Score.Advice = "Unscored - no signal had evidence"
	}
	ls, err := db.Labels(x.ID)
	if err != nil {
		return nil, err
	}
	e.Labels = make([]LabelView, 0, len(ls))
	for _, l := range ls {
		e.Labels = append(e.Labels, ViewOf(l))
	}
	e.Aggregate = Entry{Version: ver}
	switch {
	case !res.Scored:
		e.Aggregate.In = "unscored"
		return e, nil
	case res.RubricVersion != db.Rubric():
		e.Aggregate.In = "other_rubric"
		return e, nil
	}
	st, err := db.AggregateState(s.SkillKey, s.Version)
	if err != nil {
		return nil, err
	}
	e.Aggregate.In = "outside_window"
	if st == nil {
		return e, nil
	}
	entries := st.Explain(o)
	e.Aggregate.Window = len(entries)
	var wsum float64
	for _, en := range entries {
		wsum += en.Weight
	}
	for i, en := range entries {
		if i < len(st.IDs) && st.IDs[i] == x.ID {
			e.Aggregate.In = "window"
			e.Aggregate.Position = ptr(en.Index)
			e.Aggregate.Trimmed = en.Trimmed
			e.Aggregate.Weight = en.Weight
			if wsum > 0 {
				e.Aggregate.Share = round4(en.Weight / wsum)
			}
		}
	}
	return e, nil
}

func callRow(i int, c *execution.ToolCall) CallRow {
	r := CallRow{Index: i, Tool: c.Name, OK: c.OK(), Retry: c.Retry, Error: c.Error, Status: "ok", Source: c.Source}
	switch {
	case c.Denied:
		r.Status = "refused"
	case c.Interrupted:
		r.Status = "interrupted"
	case c.NoPost:
		r.Status = "no answer"
	case c.Unknown:
		r.Status = "unknown"
	case c.Failed:
		r.Status = "failed"
	}
	if c.HasDuration {
		r.DurationMS = ptr(c.DurationMS)
	}
	if !c.Start.IsZero() {
		r.Start = ptr(c.Start.UTC())
	}
	return r
}
