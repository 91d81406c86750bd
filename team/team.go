// Package team copies a machine's scored executions, prompt versions and
// decisions to a PostgreSQL database that a team shares, exactly once
// whatever fails, and reads the team's pooled view back (docs/team.md).
// It is the only package that imports the PostgreSQL driver (pgx).
//
// What leaves the machine is listed in docs/security.md: scores,
// signals, counts, tokens, cost, grades, hashes, names and timestamps;
// a prompt file's text only with team.share_text; never a tool's output,
// a final answer or a transcript.
package team

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Errors callers branch on.
var (
	// ErrSchemaNewer: the team database was upgraded by a newer sepad.
	ErrSchemaNewer = errors.New("the team database's schema is newer than this sepad: upgrade sepad on this machine (the team store is left alone; grading goes on locally)")
	// ErrSchemaOlder: the team database needs `sepad team init`.
	ErrSchemaOlder = errors.New("the team database's schema is older than this sepad, or absent: run `sepad team init`")
	// ErrNotConfigured: team.postgres is not set.
	ErrNotConfigured = errors.New("no team database: set team.postgres in the configuration (docs/team.md)")
)

// Config is how to reach the team database and what to send it.
type Config struct {
	// Postgres is a libpq connection string: a URL
	// (postgres://user@host/db) or key=value pairs. Its password, if any,
	// may also come from PGPASSWORD, PGPASSFILE (~/.pgpass) or
	// PasswordFile.
	Postgres string
	// PasswordFile holds the password (its first line) when the
	// connection string has none.
	PasswordFile string
	// Person is team.person: auto (git's user.email, hashed), off, or a
	// name used as written.
	Person string
	// ShareText sends the text of each prompt version too.
	ShareText bool
}

// DB is a connection to the team database.
type DB struct {
	conn *pgx.Conn
	// unchecked is set by Open: the schema is checked by the first read,
	// in the same round trip (Grades) or just before it.
	unchecked bool
}

// Connect opens a connection to the team database (no schema check).
func Connect(ctx context.Context, c Config) (*DB, error) {
	if strings.TrimSpace(c.Postgres) == "" {
		return nil, ErrNotConfigured
	}
	pc, err := pgx.ParseConfig(c.Postgres)
	if err != nil {
		return nil, fmt.Errorf("team.postgres: %w", err)
	}
	if pc.Password == "" && c.PasswordFile != "" {
		b, err := os.ReadFile(c.PasswordFile)
		if err != nil {
			return nil, fmt.Errorf("team.password_file: %w", err)
		}
		pc.Password = strings.TrimRight(strings.SplitN(string(b), "\n", 2)[0], "\r")
	}
	if pc.RuntimeParams == nil {
		pc.RuntimeParams = map[string]string{}
	}
	if pc.RuntimeParams["application_name"] == "" {
		pc.RuntimeParams["application_name"] = "sepad"
	}
	conn, err := pgx.ConnectConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("team database: %w", err)
	}
	return &DB{conn: conn}, nil
}

// Close closes the connection.
func (db *DB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), timeoutClose)
	defer cancel()
	return db.conn.Close(ctx)
}

// Open connects for reading: the first read checks the schema
// (ErrSchemaNewer or ErrSchemaOlder when it is not this sepad's). Grades
// sends the check with its own statements, so a command's one answer
// waits for no round trip of the check's own.
func Open(ctx context.Context, c Config) (*DB, error) {
	db, err := Connect(ctx, c)
	if err != nil {
		return nil, err
	}
	db.unchecked = true
	return db, nil
}

// checked checks the schema when Open left it to the first read.
func (db *DB) checked(ctx context.Context) error {
	if !db.unchecked {
		return nil
	}
	if err := db.CheckSchema(ctx); err != nil {
		return err
	}
	db.unchecked = false
	return nil
}
