package team

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const timeoutClose = 5 * time.Second

// SchemaVersion is the version of the team schema this sepad writes and
// reads (docs/team.md, "Schema").
const SchemaVersion = 3

// migrations[i] takes the schema from version i to i+1. A migration is
// never changed once released: a change is a new one.
var migrations = []string{
	0: `
CREATE TABLE sepad_machines (
	machine_id  text PRIMARY KEY,
	person      text NOT NULL DEFAULT '',
	first_seen  timestamptz NOT NULL DEFAULT now(),
	last_seen   timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE sepad_prompts (
	prompt_id   text PRIMARY KEY,
	kind        text NOT NULL,
	name        text NOT NULL,
	repository  text NOT NULL DEFAULT '',
	path        text NOT NULL DEFAULT '',
	first_seen  timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE sepad_versions (
	prompt_id     text NOT NULL REFERENCES sepad_prompts,
	hash          text NOT NULL,
	first_seen    timestamptz NOT NULL DEFAULT now(),
	first_machine text NOT NULL,
	content       text,
	PRIMARY KEY (prompt_id, hash)
);
CREATE TABLE sepad_executions (
	machine_id     text NOT NULL,
	execution_id   text NOT NULL,
	prompt_id      text NOT NULL REFERENCES sepad_prompts,
	version        text NOT NULL,
	person         text NOT NULL DEFAULT '',
	session_id     text NOT NULL DEFAULT '',
	started_at     timestamptz,
	ended_at       timestamptz,
	stored_at      timestamptz NOT NULL,
	shipped_at     timestamptz NOT NULL DEFAULT now(),
	complete       boolean NOT NULL,
	rubric         text NOT NULL,
	scored         boolean NOT NULL,
	score          double precision,
	grade          text NOT NULL DEFAULT '',
	signals        jsonb,
	calls          integer NOT NULL,
	failed_calls   integer NOT NULL,
	corrections    integer NOT NULL,
	input_tokens   bigint,
	output_tokens  bigint,
	cache_read_tokens     bigint,
	cache_creation_tokens bigint,
	cost_nano_usd  bigint,
	models         text[],
	PRIMARY KEY (machine_id, execution_id)
);
CREATE INDEX sepad_executions_by_version ON sepad_executions (prompt_id, version, rubric, ended_at DESC);
CREATE INDEX sepad_executions_by_time ON sepad_executions (ended_at DESC);
CREATE TABLE sepad_decisions (
	machine_id  text NOT NULL,
	seq         bigint NOT NULL,
	prompt_id   text NOT NULL REFERENCES sepad_prompts,
	time        timestamptz NOT NULL,
	kind        text NOT NULL,
	rule        text NOT NULL DEFAULT '',
	from_hash   text NOT NULL DEFAULT '',
	to_hash     text NOT NULL DEFAULT '',
	applied     boolean NOT NULL,
	outcome     text NOT NULL DEFAULT '',
	delta       double precision,
	baseline_n  integer,
	candidate_n integer,
	PRIMARY KEY (machine_id, seq)
);
CREATE INDEX sepad_decisions_by_prompt ON sepad_decisions (prompt_id, time DESC);
`,
	// 2: per version, rubric and machine, the counts and sums the grades
	// read, kept by the insert of each execution (ship.go), so the team's
	// grades read a row per machine instead of every execution.
	1: `
CREATE TABLE sepad_version_stats (
	prompt_id  text NOT NULL,
	version    text NOT NULL,
	rubric     text NOT NULL,
	machine_id text NOT NULL,
	runs       bigint NOT NULL,
	n          bigint NOT NULL,
	score_sum  double precision NOT NULL,
	score_sumsq double precision NOT NULL,
	calls      bigint NOT NULL,
	failed     bigint NOT NULL,
	last_run   timestamptz,
	PRIMARY KEY (prompt_id, version, rubric, machine_id)
);
INSERT INTO sepad_version_stats
SELECT prompt_id, version, rubric, machine_id, count(*), count(*) FILTER (WHERE scored),
	coalesce(sum(score) FILTER (WHERE scored), 0), coalesce(sum(score * score) FILTER (WHERE scored), 0),
	sum(calls), sum(failed_calls), max(coalesce(ended_at, stored_at))
FROM sepad_executions GROUP BY prompt_id, version, rubric, machine_id;
DROP INDEX sepad_executions_by_version;
CREATE INDEX sepad_executions_scored ON sepad_executions (prompt_id, version, rubric, ended_at DESC NULLS LAST) WHERE scored;
DROP INDEX sepad_executions_by_time;
CREATE INDEX sepad_executions_by_time ON sepad_executions (ended_at DESC NULLS LAST);
`,
	// 3: the team's decisions, one per candidate version of a prompt,
	// made on the pooled runs by one decider at a time (decide.go).
	2: `
CREATE TABLE sepad_team_decisions (
	prompt_id      text NOT NULL REFERENCES sepad_prompts,
	candidate      text NOT NULL,
	baseline       text NOT NULL,
	outcome        text NOT NULL,
	reason         text NOT NULL,
	delta          double precision NOT NULL,
	baseline_n     integer NOT NULL,
	candidate_n    integer NOT NULL,
	machines       integer NOT NULL,
	machine_spread double precision,
	words          text NOT NULL,
	decided_by     text NOT NULL,
	time           timestamptz NOT NULL,
	PRIMARY KEY (prompt_id, candidate)
);
`,
}

// The advisory lock key that serialises migrations across machines.
const migrateLock = 0x5e9ad0001

// Schema returns the schema version of the team database (0 when sepad
// never initialised it).
func (db *DB) Schema(ctx context.Context) (int, error) {
	return schemaOf(db.conn.QueryRow(ctx, sqlSchema))
}

const sqlSchema = `SELECT coalesce(max(version), 0) FROM sepad_schema`

// schemaOf reads sqlSchema's answer: 0 when there is no schema at all.
func schemaOf(row pgx.Row) (int, error) {
	var v int
	err := row.Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		return 0, nil
	}
	return v, err
}

// CheckSchema says whether the schema is this sepad's.
func (db *DB) CheckSchema(ctx context.Context) error {
	return schemaError(db.Schema(ctx))
}

// schemaError is ErrSchemaNewer or ErrSchemaOlder for a schema version
// v that is not this sepad's.
func schemaError(v int, err error) error {
	switch {
	case err != nil:
		return err
	case v > SchemaVersion:
		return fmt.Errorf("%w (it is version %d, this sepad knows %d)", ErrSchemaNewer, v, SchemaVersion)
	case v < SchemaVersion:
		return fmt.Errorf("%w (it is version %d, this sepad needs %d)", ErrSchemaOlder, v, SchemaVersion)
	}
	return nil
}

// Migrate creates or upgrades the schema to SchemaVersion: every step in
// one transaction (PostgreSQL's DDL is transactional: all or nothing)
// under an advisory lock, so two machines initialising at once do it once. It returns the versions before and
// after; a newer schema is ErrSchemaNewer and is left alone.
func (db *DB) Migrate(ctx context.Context) (from, to int, err error) {
	return db.migrateTo(ctx, SchemaVersion)
}

// migrateTo migrates up to version target (tests stop at older ones).
func (db *DB) migrateTo(ctx context.Context, target int) (from, to int, err error) {
	err = pgx.BeginFunc(ctx, db.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrateLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS sepad_schema (
	version    integer PRIMARY KEY,
	applied_at timestamptz NOT NULL DEFAULT now(),
	sepad      text NOT NULL DEFAULT ''
)`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM sepad_schema`).Scan(&from); err != nil {
			return err
		}
		if from > SchemaVersion {
			return fmt.Errorf("%w (it is version %d, this sepad knows %d)", ErrSchemaNewer, from, SchemaVersion)
		}
		for v := from; v < target; v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("team schema %d to %d: %w", v, v+1, err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO sepad_schema (version) VALUES ($1)`, v+1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return from, from, err
	}
	return from, max(from, target), nil
}
