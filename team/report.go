package team

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sepad/sepad/store"
)

// Report is `sepad team status`: what the daemon's shipper last wrote
// (pending, shipped, last error, lag) and the team database as the
// command found it.
type Report struct {
	Status
	// Database is the team database's schema as this command found it
	// (reachable, schema version, error).
	Database DBState `json:"database"`
}

// DBState is the team database as a command found it.
type DBState struct {
	Reachable bool   `json:"reachable"`
	Schema    int    `json:"schema_version"`
	Want      int    `json:"schema_wanted"`
	Error     string `json:"error,omitempty"`
}

// ReadReport reads the shipper's status in home (with no daemon that
// ever shipped, the counts of home's store, opened read-only with
// lockTimeout) and reaches the database itself.
func ReadReport(ctx context.Context, c Config, home string, lockTimeout time.Duration) (*Report, error) {
	if strings.TrimSpace(c.Postgres) == "" {
		return nil, ErrNotConfigured
	}
	doc := Report{Database: DBState{Want: SchemaVersion}}
	if st, err := ReadStatus(home); err == nil {
		doc.Status = *st
	} else if errors.Is(err, os.ErrNotExist) {
		doc.Status.Configured = true
		// No daemon has shipped from this home: count from the store.
		if db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{ReadOnly: true, LockTimeout: lockTimeout}); err == nil {
			if ob, err := db.Outbox(OutboxName); err == nil {
				doc.Pending, doc.Shipped = ob.Pending, ob.Shipped
			}
			db.Close()
		}
	} else {
		return nil, err
	}
	if db, err := Connect(ctx, c); err != nil {
		doc.Database.Error = err.Error()
	} else {
		doc.Database.Reachable = true
		if v, err := db.Schema(ctx); err != nil {
			doc.Database.Error = err.Error()
		} else {
			doc.Database.Schema = v
		}
		db.Close()
	}
	return &doc, nil
}
