package team

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// The rows one batch writes, and how (docs/security.md lists every column
// and why it leaves the machine).

// signalRow is one signal of a score as it leaves the machine: no Detail
// (its words can quote what a tool printed).
type signalRow struct {
	Signal       string  `json:"signal"`
	Present      bool    `json:"present"`
	Value        float64 `json:"value"`
	SubScore     float64 `json:"sub_score"`
	Weight       float64 `json:"weight"`
	Contribution float64 `json:"contribution"`
}

// DecisionRow is the part of a stored decision that leaves the machine,
// for the team's store and the OpenTelemetry records alike: what was
// decided, on which versions, with the numbers; never its words (they
// name files of this machine).
type DecisionRow struct {
	Kind     string `json:"kind"`
	Rule     string `json:"rule"`
	From     string `json:"from"`
	To       string `json:"to"`
	Applied  bool   `json:"applied"`
	Skill    string `json:"skill"`
	Decision *struct {
		Outcome    string  `json:"outcome"`
		Delta      float64 `json:"delta"`
		BaselineN  int     `json:"baseline_n"`
		CandidateN int     `json:"candidate_n"`
	} `json:"decision"`
}

const (
	sqlMachine = `INSERT INTO sepad_machines (machine_id, person, first_seen, last_seen) VALUES ($1, $2, $3, $3)
ON CONFLICT (machine_id) DO UPDATE SET person = EXCLUDED.person, last_seen = EXCLUDED.last_seen`
	sqlPrompt = `INSERT INTO sepad_prompts (prompt_id, kind, name, repository, path, first_seen) VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (prompt_id) DO NOTHING`
	sqlVersion = `INSERT INTO sepad_versions (prompt_id, hash, first_seen, first_machine, content) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (prompt_id, hash) DO UPDATE
SET first_seen = least(sepad_versions.first_seen, EXCLUDED.first_seen), content = coalesce(sepad_versions.content, EXCLUDED.content)
WHERE EXCLUDED.first_seen < sepad_versions.first_seen OR (sepad_versions.content IS NULL AND EXCLUDED.content IS NOT NULL)`
	// sqlExecution inserts an execution and, only when it was new (the
	// RETURNING of an insert that did nothing is empty), adds it to its
	// version's counts: a replayed execution changes neither.
	sqlExecution = `WITH ins AS (
INSERT INTO sepad_executions (machine_id, execution_id, prompt_id, version, person, session_id,
	started_at, ended_at, stored_at, complete, rubric, scored, score, grade, signals, calls, failed_calls, corrections,
	input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, cost_nano_usd, models)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)
ON CONFLICT (machine_id, execution_id) DO NOTHING
RETURNING prompt_id, version, rubric, machine_id, scored, score, calls, failed_calls, coalesce(ended_at, stored_at) AS t)
INSERT INTO sepad_version_stats AS s (prompt_id, version, rubric, machine_id, runs, n, score_sum, score_sumsq, calls, failed, last_run)
SELECT prompt_id, version, rubric, machine_id, 1, CASE WHEN scored THEN 1 ELSE 0 END,
	CASE WHEN scored THEN score ELSE 0 END, CASE WHEN scored THEN score * score ELSE 0 END, calls, failed_calls, t FROM ins
ON CONFLICT (prompt_id, version, rubric, machine_id) DO UPDATE SET
	runs = s.runs + EXCLUDED.runs, n = s.n + EXCLUDED.n, score_sum = s.score_sum + EXCLUDED.score_sum,
	score_sumsq = s.score_sumsq + EXCLUDED.score_sumsq, calls = s.calls + EXCLUDED.calls, failed = s.failed + EXCLUDED.failed,
	last_run = greatest(s.last_run, EXCLUDED.last_run)`
	sqlDecision = `INSERT INTO sepad_decisions (machine_id, seq, prompt_id, time, kind, rule, from_hash, to_hash, applied,
	outcome, delta, baseline_n, candidate_n)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
ON CONFLICT (machine_id, seq) DO NOTHING`
)

// source is what a batch needs of this machine's store and identity.
type source struct {
	db        *store.DB
	machine   string
	person    string
	shareText bool
	resolve   *Resolver
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// queueExecutions queues one batch's rows on b, noting in prompts the
// prompts they ran.
func (s *source) queueExecutions(b *pgx.Batch, xs []record.Scored, now time.Time, prompts map[string]bool) error {
	versions := map[string]bool{}
	for i := range xs {
		sc := &xs[i]
		x := &sc.Exec
		p := s.resolve.Prompt(x.Kind, x.Skill, x.SkillPath, x.Project)
		if !prompts[p.ID] {
			prompts[p.ID] = true
			b.Queue(sqlPrompt, p.ID, p.Kind, p.Name, p.Repository, p.Path, now)
		}
		if vk := p.ID + "\x00" + sc.Version; !versions[vk] {
			versions[vk] = true
			var content any
			// When the version was first seen: the record's time, else
			// (a version only named by executions) this run's start.
			first := x.StartedAt
			if first.IsZero() {
				first = now
			}
			if v, err := s.db.Version(sc.SkillKey, sc.Version); err == nil {
				if !v.FirstSeen.IsZero() {
					first = v.FirstSeen
				}
				if s.shareText && v.ContentKnown {
					content = string(v.Content)
				}
			}
			b.Queue(sqlVersion, p.ID, sc.Version, first.UTC(), s.machine, content)
		}
		var score any
		if sc.Result.Scored {
			score = sc.Result.Score
		}
		sigs := make([]signalRow, len(sc.Result.Signals))
		for j, g := range sc.Result.Signals {
			sigs[j] = signalRow{g.Signal, g.Present, g.Value, g.SubScore, g.Weight, g.Contribution}
		}
		sj, err := json.Marshal(sigs)
		if err != nil {
			return err
		}
		var in, out, cr, cc, cost any
		var models []string
		if u := x.Usage; u != nil {
			in, out, cr, cc, cost = u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheCreationTokens, u.CostNanoUSD
			models = u.Models
		}
		b.Queue(sqlExecution, s.machine, x.ID, p.ID, sc.Version, s.person, x.SessionID,
			nullTime(x.StartedAt), nullTime(x.EndedAt), sc.Stored.UTC(), x.Complete, sc.Result.RubricVersion, sc.Result.Scored,
			score, string(sc.Result.Grade), sj, len(x.Calls), x.Failures(), x.Corrections, in, out, cr, cc, cost, models)
	}
	return nil
}

// queueDecisions queues a batch of decisions.
func (s *source) queueDecisions(b *pgx.Batch, ds []record.Decision, now time.Time) error {
	prompts := map[string]bool{}
	for _, d := range ds {
		var r DecisionRow
		if err := json.Unmarshal(d.Payload, &r); err != nil {
			return err
		}
		p := Prompt{ID: "unknown"}
		if sk, err := s.db.Skill(d.SkillKey); err == nil && sk != nil {
			p = s.resolve.Prompt(sk.Kind, sk.Name, sk.Path, sk.Project)
		} else if r.Skill != "" {
			p = s.resolve.Prompt("skill", r.Skill, "", "")
		}
		if !prompts[p.ID] {
			prompts[p.ID] = true
			b.Queue(sqlPrompt, p.ID, p.Kind, p.Name, p.Repository, p.Path, now)
		}
		var outcome string
		var delta, bn, cn any
		if r.Decision != nil {
			outcome, delta, bn, cn = r.Decision.Outcome, r.Decision.Delta, r.Decision.BaselineN, r.Decision.CandidateN
		}
		b.Queue(sqlDecision, s.machine, int64(d.Seq), p.ID, d.Time.UTC(), r.Kind, r.Rule, r.From, r.To, r.Applied,
			outcome, delta, bn, cn)
	}
	return nil
}

// sendBatch runs b in one transaction on conn, with the machine's row
// first.
func sendBatch(ctx context.Context, conn *pgx.Conn, machine, person string, now time.Time, b *pgx.Batch) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		all := &pgx.Batch{}
		all.Queue(sqlMachine, machine, person, now.UTC())
		all.QueuedQueries = append(all.QueuedQueries, b.QueuedQueries...)
		return tx.SendBatch(ctx, all).Close()
	})
}
