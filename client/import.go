package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/reward"
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

// ImportFacets labels, from Claude Code's /insights facets in dir
// (importer.ReadFacets), the main-thread executions of their sessions
// among the newest query.MaxLimit that no one labelled by hand (source
// "insights"), through home's daemon or the CLI's own engine; nothing is
// written when dry. It returns what was labelled, kept and skipped, and
// importer.ErrNoFacets when dir holds no facets.
func ImportFacets(home, config, dir string, dry bool) (*importer.FacetsReport, error) {
	rep := importer.FacetsReport{Dir: dir, DryRun: dry, Labelled: []importer.FacetLabel{}, Kept: []importer.FacetLabel{}, Skipped: []importer.FacetSkip{}}
	facets, err := importer.ReadFacets(dir, &rep)
	if err != nil {
		return nil, err
	}
	var list query.Executions
	if _, err := Fetch(home, config, fmt.Sprintf("/v1/executions?limit=%d", query.MaxLimit), &list); err != nil {
		return nil, err
	}
	runs := make([]importer.FacetRun, len(list.Executions))
	for i, r := range list.Executions {
		runs[i] = importer.FacetRun{ID: r.ID, Session: r.SessionID, Skill: r.Skill}
	}
	writes, err := importer.FacetLabels(facets, runs, &rep, func(id string) (bool, *reward.Label, error) {
		var x query.Explain
		if _, err := Fetch(home, config, "/v1/executions/"+id, &x); err != nil || len(x.Labels) == 0 {
			return x.AgentID != "", nil, err
		}
		return x.AgentID != "", &x.Labels[0].Label, nil
	})
	if err != nil {
		return nil, err
	}
	if !dry && len(writes) > 0 {
		c := New(home, config)
		defer c.Close()
		for _, w := range writes {
			body, err := json.Marshal(w.Input)
			if err != nil {
				return nil, err
			}
			if _, err := c.Post("/v1/executions/"+w.ID+"/label", body); err != nil {
				return nil, fmt.Errorf("label %s: %w", w.ID, err)
			}
		}
	}
	return &rep, nil
}
