package team

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sepad/sepad/decide"
	"github.com/sepad/sepad/render/words"
)

// Team decisions: the sequential test and its rules (package mutation's
// Decide) on the pooled runs of a prompt's versions, each machine's level
// taken out (Adjust), by one decider at a time: a PostgreSQL advisory
// lock per prompt, taken for the transaction, so any daemon can decide
// and two never decide the same prompt at once. A decision is recorded
// once per candidate version (sepad_team_decisions) and shown on every
// machine (`sepad decisions --team`); it writes no one's files.

// TeamDecision is a recorded decision on a prompt's candidate version.
type TeamDecision struct {
	PromptID   string    `json:"prompt_id"`
	Candidate  string    `json:"candidate"`
	Baseline   string    `json:"baseline"`
	Outcome    string    `json:"outcome"`
	Reason     string    `json:"reason"`
	Delta      float64   `json:"delta"`
	BaselineN  int       `json:"baseline_n"`
	CandidateN int       `json:"candidate_n"`
	Machines   int       `json:"machines"`
	Spread     *float64  `json:"machine_spread"`
	Words      string    `json:"words"`
	DecidedBy  string    `json:"decided_by"`
	Time       time.Time `json:"time"`
}

// ErrBusy: another machine holds the prompt's decider lock.
var ErrBusy = errors.New("another machine is deciding this prompt")

// Decide looks at prompt promptID once: its current version (the one
// whose newest run is the newest) against its baseline (the candidate the
// team last accepted, else the version first seen before it). It returns
// the decision recorded for the current version (made now or before), nil
// while the test is undecided or there is nothing to compare, and
// ErrBusy when another decider holds the prompt.
func (db *DB) Decide(ctx context.Context, promptID, rubric string, o decide.Options, machine string, now time.Time) (*TeamDecision, error) {
	var out *TeamDecision
	err := pgx.BeginFunc(ctx, db.conn, func(tx pgx.Tx) error {
		var locked bool
		if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended('sepad decide ' || $1, 0))`, promptID).Scan(&locked); err != nil {
			return err
		}
		if !locked {
			return ErrBusy
		}
		var cand string
		err := tx.QueryRow(ctx, `SELECT version FROM sepad_version_stats WHERE prompt_id = $1 AND rubric = $2
GROUP BY version ORDER BY max(last_run) DESC NULLS LAST, version LIMIT 1`, promptID, rubric).Scan(&cand)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if d, err := recorded(ctx, tx, promptID, cand); err != nil || d != nil {
			out = d
			return err
		}
		var base string
		err = tx.QueryRow(ctx, `SELECT candidate FROM sepad_team_decisions WHERE prompt_id = $1 AND outcome = 'accept'
ORDER BY time DESC LIMIT 1`, promptID).Scan(&base)
		if errors.Is(err, pgx.ErrNoRows) {
			err = tx.QueryRow(ctx, `SELECT hash FROM sepad_versions WHERE prompt_id = $1 AND hash <> $2
	AND first_seen <= (SELECT first_seen FROM sepad_versions WHERE prompt_id = $1 AND hash = $2)
ORDER BY first_seen DESC, hash LIMIT 1`, promptID, cand).Scan(&base)
		}
		if errors.Is(err, pgx.ErrNoRows) || base == cand {
			return nil // one version: nothing to compare
		}
		if err != nil {
			return err
		}
		runs, machines, spread, err := pooledRuns(ctx, tx, promptID, rubric, base, cand, 8*max(o.MaxSamples, 60))
		if err != nil {
			return err
		}
		b, c := Adjust(runs)
		d := decide.Decide(promptID, base, cand, decide.Sample{Scores: b}, decide.Sample{Scores: c}, o)
		words.Explain(&d)
		if d.Outcome == decide.Undecided {
			return nil
		}
		td := &TeamDecision{PromptID: promptID, Candidate: cand, Baseline: base, Outcome: d.Outcome, Reason: d.Reason,
			Delta: d.Delta, BaselineN: len(b), CandidateN: len(c), Machines: machines, Spread: spread,
			Words:     d.Words + fmt.Sprintf(" (pooled over %s, each machine's level taken out)", plural(machines, "machine")),
			DecidedBy: machine, Time: now.UTC()}
		if _, err := tx.Exec(ctx, `INSERT INTO sepad_team_decisions (prompt_id, candidate, baseline, outcome, reason, delta,
	baseline_n, candidate_n, machines, machine_spread, words, decided_by, time)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (prompt_id, candidate) DO NOTHING`,
			td.PromptID, td.Candidate, td.Baseline, td.Outcome, td.Reason, td.Delta, td.BaselineN, td.CandidateN,
			td.Machines, td.Spread, td.Words, td.DecidedBy, td.Time); err != nil {
			return err
		}
		out = td
		return nil
	})
	return out, err
}

func recorded(ctx context.Context, q pgx.Tx, promptID, cand string) (*TeamDecision, error) {
	ds, err := scanDecisions(q.Query(ctx, sqlTeamDecisions+` WHERE prompt_id = $1 AND candidate = $2`, promptID, cand))
	if err != nil || len(ds) == 0 {
		return nil, err
	}
	return &ds[0], nil
}

// pooledRuns returns the newest scored runs of two versions, newest
// first, how many machines ran them, and the spread of the machines'
// means (null with fewer than two).
func pooledRuns(ctx context.Context, tx pgx.Tx, promptID, rubric, base, cand string, limit int) ([]Run, int, *float64, error) {
	rows, err := tx.Query(ctx, `SELECT machine_id, version = $3, score, COALESCE(array_to_string(models, '+'), '') FROM sepad_executions
WHERE prompt_id = $1 AND rubric = $2 AND scored AND version IN ($3, $4)
ORDER BY ended_at DESC NULLS LAST LIMIT $5`, promptID, rubric, cand, base, limit)
	if err != nil {
		return nil, 0, nil, err
	}
	defer rows.Close()
	var runs []Run
	type acc struct {
		sum float64
		n   int
	}
	per := map[string]*acc{}
	for rows.Next() {
		var r Run
		if err := rows.Scan(&r.Machine, &r.Candidate, &r.Score, &r.Model); err != nil {
			return nil, 0, nil, err
		}
		runs = append(runs, r)
		a := per[r.Machine]
		if a == nil {
			a = &acc{}
			per[r.Machine] = a
		}
		a.sum += r.Score
		a.n++
	}
	if err := rows.Err(); err != nil {
		return nil, 0, nil, err
	}
	var ms []MachineRow
	for _, a := range per {
		m := a.sum / float64(a.n)
		ms = append(ms, MachineRow{Mean: &m})
	}
	sp := spread(ms)
	if sp != nil && math.IsNaN(*sp) {
		sp = nil
	}
	return runs, len(per), sp, nil
}

const sqlTeamDecisions = `SELECT prompt_id, candidate, baseline, outcome, reason, delta, baseline_n, candidate_n, machines,
	machine_spread, words, decided_by, time FROM sepad_team_decisions`

func scanDecisions(rows pgx.Rows, err error) ([]TeamDecision, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TeamDecision
	for rows.Next() {
		var d TeamDecision
		if err := rows.Scan(&d.PromptID, &d.Candidate, &d.Baseline, &d.Outcome, &d.Reason, &d.Delta, &d.BaselineN,
			&d.CandidateN, &d.Machines, &d.Spread, &d.Words, &d.DecidedBy, &d.Time); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// TeamDecisions returns the team's decisions, newest first, for the
// prompts named skill (a name or a prompt ID; "" all).
func (db *DB) TeamDecisions(ctx context.Context, skill string, limit int) ([]TeamDecision, error) {
	if limit <= 0 {
		limit = 50
	}
	if err := db.checked(ctx); err != nil {
		return nil, err
	}
	ds, err := scanDecisions(db.conn.Query(ctx, sqlTeamDecisions+`
WHERE $1 = '' OR prompt_id IN (SELECT prompt_id FROM sepad_prompts WHERE name = $1 OR prompt_id = $1)
ORDER BY time DESC LIMIT $2`, skill, limit))
	if ds == nil {
		ds = []TeamDecision{}
	}
	return ds, err
}

// plural is "1 machine", "2 machines".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
