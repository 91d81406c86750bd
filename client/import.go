package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/store"
)

// Import posts recs (importer.Load's) to /v1/import: the daemon's
// collector feeds them through its pipeline, or, with no daemon, the
// CLI's own over the database, created when there is none (no daemon has
// run: an import is a way to start). It returns the pipeline's report of
// what it added.
func (c *Client) Import(recs []importer.Record) (*importer.Report, error) {
	var body bytes.Buffer
	if err := importer.WriteRecords(&body, recs); err != nil {
		return nil, err
	}
	if err := ensureDB(c.home); err != nil {
		return nil, err
	}
	b, err := c.Post("/v1/import", body.Bytes())
	if err != nil {
		return nil, err
	}
	var done importer.Report
	if err := json.Unmarshal(b, &done); err != nil {
		return nil, fmt.Errorf("malformed answer: %w", err)
	}
	return &done, nil
}

// ensureDB creates the database in home when there is none.
func ensureDB(home string) error {
	path := filepath.Join(home, "sepa.db")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return err
	}
	return db.Close()
}
