package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/reward"
)

// importFacets is `sepad import --facets [DIR]`: Claude Code's /insights
// facets (<claude config dir>/usage-data/facets/<session>.json, or DIR)
// become labels, source "insights", on every main-thread execution of
// their session that no one labelled by hand (docs/import.md).
func importFacets(qf queryFlags, pos []string, dry bool, stdout io.Writer) error {
	if len(pos) > 1 {
		return usageErrorf("usage: sepad import --facets [DIR]")
	}
	var dir string
	if len(pos) == 1 {
		dir = pos[0]
	} else {
		cd, err := prompt.ConfigDir()
		if err != nil {
			return err
		}
		dir = filepath.Join(cd, "usage-data", "facets")
	}
	rep := importer.FacetsReport{Dir: dir, DryRun: dry, Labelled: []importer.FacetLabel{}, Kept: []importer.FacetLabel{}, Skipped: []importer.FacetSkip{}}
	facets, err := importer.ReadFacets(dir, &rep)
	if errors.Is(err, importer.ErrNoFacets) {
		return usageErrorf("no /insights facets in %s (run /insights in Claude Code first, or give the directory)", dir)
	}
	if err != nil {
		return err
	}
	// The executions of those sessions, among the newest MaxLimit.
	var list query.Executions
	if _, err := fetch(qf, fmt.Sprintf("/v1/executions?limit=%d", query.MaxLimit), &list); err != nil {
		return err
	}
	runs := make([]importer.FacetRun, len(list.Executions))
	for i, r := range list.Executions {
		runs[i] = importer.FacetRun{ID: r.ID, Session: r.SessionID, Skill: r.Skill}
	}
	writes, err := importer.FacetLabels(facets, runs, &rep, func(id string) (bool, *reward.Label, error) {
		var x query.Explain
		if _, err := fetch(qf, "/v1/executions/"+id, &x); err != nil || len(x.Labels) == 0 {
			return x.AgentID != "", nil, err
		}
		return x.AgentID != "", &x.Labels[0].Label, nil
	})
	if err != nil {
		return err
	}
	if !dry && len(writes) > 0 {
		c := client.New(qf.home, qf.config)
		defer c.Close()
		for _, w := range writes {
			body, err := json.Marshal(w.Input)
			if err != nil {
				return err
			}
			if _, err := c.Post("/v1/executions/"+w.ID+"/label", body); err != nil {
				return fmt.Errorf("label %s: %w", w.ID, err)
			}
		}
	}
	if qf.json {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return printJSON(stdout, b)
	}
	render.Facets(stdout, &rep)
	return nil
}
