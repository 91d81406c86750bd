package team

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sepad/sepad/aggregate"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/query"
)

// The team's view: the rows of `sepad grades` and `sepad executions`
// over every machine's runs, in the same JSON shape plus the team's
// fields.

// GradeRow is a row of `sepad grades --team`: query.GradeRow over the
// pooled runs of every machine (N is their sum), with how many machines
// ran the version and the prompt's team identity.
type GradeRow struct {
	query.GradeRow
	Machines   int    `json:"machines"`
	PromptID   string `json:"prompt_id"`
	Repository string `json:"repository,omitempty"`
	Path       string `json:"path,omitempty"`
	// Spread is the standard deviation of the machines' means (null
	// with fewer than two machines with scored runs): how much the
	// machines disagree, beside SD, how much the runs do.
	Spread *float64 `json:"machine_spread"`
}

// Grades is `sepad grades --team --json`.
type Grades struct {
	RubricVersion string     `json:"rubric_version"`
	MinSamples    int        `json:"min_samples"`
	Team          bool       `json:"team"`
	Machines      int        `json:"machines"`
	Grades        []GradeRow `json:"grades"`
}

// GradesOptions select and compute the team's grades.
type GradesOptions struct {
	// Rubric is the rubric version whose scores are pooled.
	Rubric    string
	Aggregate aggregate.Options
	// Match keeps the prompts with this name or prompt ID ("" all).
	Match string
	// AllVersions gives every version a row, not only the current one.
	AllVersions bool
}

// sqlGrades pools each version's runs: counts, mean and spread over all
// of them, machines, and the newest scores of the aggregate's window,
// newest first (the index on prompt, version, rubric and time reads only
// those, in that order: no sort).
const sqlGrades = `
WITH v AS (
	SELECT prompt_id, version,
		coalesce(sum(n) FILTER (WHERE rubric = $1), 0) AS n,
		count(DISTINCT machine_id) AS machines,
		coalesce(sum(score_sum) FILTER (WHERE rubric = $1), 0) AS s,
		coalesce(sum(score_sumsq) FILTER (WHERE rubric = $1), 0) AS ss,
		max(last_run) AS last_run,
		sum(calls) AS calls, sum(failed) AS failed,
		stddev_samp(score_sum / n) FILTER (WHERE rubric = $1 AND n > 0) AS spread
	FROM sepad_version_stats
	WHERE $2 = '' OR prompt_id IN (SELECT prompt_id FROM sepad_prompts WHERE name = $2 OR prompt_id = $2)
	GROUP BY prompt_id, version
)
SELECT v.prompt_id, v.version, v.n, v.machines, v.s, v.ss, v.last_run, v.calls, v.failed,
	p.kind, p.name, p.repository, p.path, ver.first_seen, ver.content IS NOT NULL,
	ARRAY(SELECT score FROM sepad_executions e
		WHERE e.prompt_id = v.prompt_id AND e.version = v.version AND e.rubric = $1 AND e.scored
		ORDER BY ended_at DESC NULLS LAST LIMIT $3), v.spread
FROM v
JOIN sepad_prompts p ON p.prompt_id = v.prompt_id
LEFT JOIN sepad_versions ver ON ver.prompt_id = v.prompt_id AND ver.hash = v.version`

// Grades returns the team's grades: one row per prompt (its current
// version: the one whose newest run is the newest), or per version.
func (db *DB) Grades(ctx context.Context, o GradesOptions) (*Grades, error) {
	if o.Aggregate.Window <= 0 {
		o.Aggregate.Window = aggregate.DefaultOptions().Window
	}
	// One round trip for the schema check (when Open left it to this
	// read), the grades and the machines: a command that answers once
	// waits on the database as little as it can.
	b := &pgx.Batch{}
	check := db.unchecked
	if check {
		b.Queue(sqlSchema)
	}
	b.Queue(sqlGrades, o.Rubric, o.Match, o.Aggregate.Window)
	b.Queue(`SELECT count(*) FROM sepad_machines`)
	br := db.conn.SendBatch(ctx, b)
	out, err := readGrades(br, check, o)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil && check {
		// A schema that is not this sepad's explains a failed query.
		if serr := db.CheckSchema(ctx); serr != nil {
			return nil, serr
		}
	}
	if err != nil {
		return nil, err
	}
	db.unchecked = false
	return out, nil
}

// readGrades reads the answers of Grades's batch.
func readGrades(br pgx.BatchResults, check bool, o GradesOptions) (*Grades, error) {
	if check {
		if err := schemaError(schemaOf(br.QueryRow())); err != nil {
			return nil, err
		}
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	type vrow struct {
		GradeRow
		lastRun   time.Time
		firstSeen *time.Time
	}
	byPrompt := map[string][]*vrow{}
	for rows.Next() {
		var r vrow
		var n, machines int
		var sum, sumsq float64
		var calls, failed int64
		var scores []float64
		var known bool
		if err := rows.Scan(&r.PromptID, &r.Hash, &n, &machines, &sum, &sumsq, &r.lastRun, &calls, &failed,
			&r.Kind, &r.Skill, &r.Repository, &r.Path, &r.firstSeen, &known, &scores, &r.Spread); err != nil {
			rows.Close()
			return nil, err
		}
		r.SkillKey, r.Project, r.Machines, r.N, r.ContentKnown = r.PromptID, r.Repository, machines, n, known
		r.FirstSeen = r.firstSeen
		if r.Spread != nil {
			sp := round4(*r.Spread)
			r.Spread = &sp
		}
		if calls > 0 {
			r.FailRate = round4(float64(failed) / float64(calls))
		}
		if n > 0 && len(scores) > 0 {
			mean, sd := sum/float64(n), 0.0
			if n > 1 {
				sd = math.Sqrt(max(0, (sumsq-sum*sum/float64(n))/float64(n-1)))
			}
			a, _ := aggregate.Compute(scores, o.Aggregate)
			a.N, a.Mean, a.SD, a.Graded = n, round4(mean), round4(sd), n >= max(o.Aggregate.MinSamples, 1)
			r.Aggregate, r.Mean, r.SD, r.LastScore = &a.Value, &a.Mean, &a.SD, &a.Last
			g := fitness.Ungraded
			if a.Graded {
				g = fitness.GradeOf(a.Value)
			}
			r.Grade, r.Advice = string(g), g.Advice()
		} else {
			r.Advice = fitness.Ungraded.Advice()
		}
		byPrompt[r.PromptID] = append(byPrompt[r.PromptID], &r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := &Grades{RubricVersion: o.Rubric, MinSamples: max(o.Aggregate.MinSamples, 1), Team: true, Grades: []GradeRow{}}
	if err := br.QueryRow().Scan(&out.Machines); err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(byPrompt))
	for id := range byPrompt {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		vs := byPrompt[id]
		// Versions numbered in the order the team first saw them.
		sort.Slice(vs, func(i, j int) bool {
			return seen(vs[i].firstSeen, vs[i].lastRun).Before(seen(vs[j].firstSeen, vs[j].lastRun))
		})
		cur := 0
		for i, v := range vs {
			v.Version = i + 1
			if v.lastRun.After(vs[cur].lastRun) {
				cur = i
			}
		}
		vs[cur].Current = true
		var prev *vrow
		for _, v := range vs {
			if v.Grade != "" && v.Aggregate != nil {
				if prev != nil {
					d := round4(*v.Aggregate - *prev.Aggregate)
					v.Change = &d
				}
				prev = v
			}
			v.Status = "observed"
			if v.Current {
				v.Status = "current"
			}
		}
		for i := len(vs) - 1; i >= 0; i-- {
			if o.AllVersions || vs[i].Current {
				out.Grades = append(out.Grades, vs[i].GradeRow)
			}
		}
	}
	return out, nil
}

func seen(first *time.Time, last time.Time) time.Time {
	if first != nil {
		return *first
	}
	return last
}

func round4(f float64) float64 { return math.Round(f*1e4) / 1e4 }

// ExecRow is a row of `sepad executions --team`: query.ExecRow with the
// machine that ran it and the prompt's team identity.
type ExecRow struct {
	query.ExecRow
	Machine  string `json:"machine"`
	PromptID string `json:"prompt_id"`
}

// Executions is `sepad executions --team --json`.
type Executions struct {
	Limit      int       `json:"limit"`
	Team       bool      `json:"team"`
	Executions []ExecRow `json:"executions"`
}

// ExecutionsOptions select executions.
type ExecutionsOptions struct {
	Match string // a prompt name ("" all)
	Limit int    // 0: 50
}

// Executions returns the newest executions of every machine.
func (db *DB) Executions(ctx context.Context, o ExecutionsOptions) (*Executions, error) {
	if o.Limit <= 0 {
		o.Limit = 50
	}
	if err := db.checked(ctx); err != nil {
		return nil, err
	}
	rows, err := db.conn.Query(ctx, `
SELECT e.machine_id, e.execution_id, e.session_id, e.prompt_id, p.name, p.repository, e.version,
	coalesce(e.ended_at, e.stored_at), e.started_at, e.ended_at, e.calls, e.failed_calls, e.complete, e.score, e.grade,
	e.input_tokens, e.output_tokens, e.cache_read_tokens, e.cache_creation_tokens, e.cost_nano_usd, e.models
FROM sepad_executions e JOIN sepad_prompts p ON p.prompt_id = e.prompt_id
WHERE $1 = '' OR p.name = $1
ORDER BY e.ended_at DESC NULLS LAST, e.machine_id, e.execution_id
LIMIT $2`, o.Match, o.Limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &Executions{Limit: o.Limit, Team: true, Executions: []ExecRow{}}
	for rows.Next() {
		var r ExecRow
		var started, ended *time.Time
		var in, outT, cr, cc, cost *int64
		var models []string
		if err := rows.Scan(&r.Machine, &r.ID, &r.SessionID, &r.PromptID, &r.Skill, &r.Project, &r.Hash,
			&r.Time, &started, &ended, &r.Calls, &r.Failed, &r.Complete, &r.Score, &r.Grade,
			&in, &outT, &cr, &cc, &cost, &models); err != nil {
			return nil, err
		}
		r.SkillKey = r.PromptID
		if started != nil && ended != nil && ended.After(*started) {
			ms := ended.Sub(*started).Milliseconds()
			r.DurationMS = &ms
		}
		if in != nil {
			r.Usage = &execution.Usage{InputTokens: *in, OutputTokens: deref(outT), CacheReadTokens: deref(cr),
				CacheCreationTokens: deref(cc), CostNanoUSD: deref(cost), Models: models}
		}
		out.Executions = append(out.Executions, r)
	}
	return out, rows.Err()
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// MachineRow is one machine's part of a version's pooled runs.
type MachineRow struct {
	Machine string     `json:"machine"`
	Person  string     `json:"person,omitempty"`
	Runs    int        `json:"runs"`
	N       int        `json:"n"`
	Mean    *float64   `json:"mean"`
	SD      *float64   `json:"sd"`
	LastRun *time.Time `json:"last_run"`
}

// VersionRow is a row of `sepad versions SKILL --team`: the pooled row and
// each machine's part of it.
type VersionRow struct {
	GradeRow
	PerMachine []MachineRow `json:"per_machine"`
}

// Versions is `sepad versions SKILL --team --json`.
type Versions struct {
	RubricVersion string       `json:"rubric_version"`
	MinSamples    int          `json:"min_samples"`
	Team          bool         `json:"team"`
	Skill         Prompt       `json:"skill"`
	Versions      []VersionRow `json:"versions"`
}

// ErrAmbiguous: a name that several prompts of the team store have.
var ErrAmbiguous = errors.New("several prompts have this name: name one by its prompt_id")

// ErrNoPrompt: no prompt has this name or ID in the team store.
var ErrNoPrompt = errors.New("no such prompt in the team database")

// Versions returns every version of one prompt (a name or a prompt ID),
// newest first, with each machine's part.
func (db *DB) Versions(ctx context.Context, skill string, o GradesOptions) (*Versions, error) {
	o.Match, o.AllVersions = skill, true
	g, err := db.Grades(ctx, o)
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, r := range g.Grades {
		ids[r.PromptID] = true
	}
	switch {
	case len(ids) == 0:
		return nil, fmt.Errorf("%q: %w", skill, ErrNoPrompt)
	case len(ids) > 1:
		var names []string
		for id := range ids {
			names = append(names, id)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("%q: %w: %s", skill, ErrAmbiguous, strings.Join(names, ", "))
	}
	out := &Versions{RubricVersion: g.RubricVersion, MinSamples: g.MinSamples, Team: true}
	for _, r := range g.Grades {
		out.Skill = Prompt{ID: r.PromptID, Kind: r.Kind, Name: r.Skill, Repository: r.Repository, Path: r.Path}
		out.Versions = append(out.Versions, VersionRow{GradeRow: r, PerMachine: []MachineRow{}})
	}
	rows, err := db.conn.Query(ctx, `
SELECT s.version, s.machine_id, coalesce(m.person, ''), s.runs, s.n, s.score_sum, s.score_sumsq, s.last_run
FROM sepad_version_stats s LEFT JOIN sepad_machines m ON m.machine_id = s.machine_id
WHERE s.prompt_id = $1 AND s.rubric = $2
ORDER BY s.version, s.n DESC, s.machine_id`, out.Skill.ID, o.Rubric)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byHash := map[string]*VersionRow{}
	for i := range out.Versions {
		byHash[out.Versions[i].Hash] = &out.Versions[i]
	}
	for rows.Next() {
		var hash string
		var m MachineRow
		var sum, sumsq float64
		if err := rows.Scan(&hash, &m.Machine, &m.Person, &m.Runs, &m.N, &sum, &sumsq, &m.LastRun); err != nil {
			return nil, err
		}
		if m.N > 0 {
			mean := round4(sum / float64(m.N))
			m.Mean = &mean
			if m.N > 1 {
				sd := round4(math.Sqrt(max(0, (sumsq-sum*sum/float64(m.N))/float64(m.N-1))))
				m.SD = &sd
			}
		}
		if v := byHash[hash]; v != nil {
			v.PerMachine = append(v.PerMachine, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// spread is the standard deviation of the machines' means.
func spread(ms []MachineRow) *float64 {
	var means []float64
	for _, m := range ms {
		if m.Mean != nil {
			means = append(means, *m.Mean)
		}
	}
	if len(means) < 2 {
		return nil
	}
	var sum, sumsq float64
	for _, x := range means {
		sum += x
		sumsq += x * x
	}
	n := float64(len(means))
	sd := round4(math.Sqrt(max(0, (sumsq-sum*sum/n)/(n-1))))
	return &sd
}
