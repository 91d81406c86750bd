package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/internal/claudedir"
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
		cd, err := claudedir.Dir()
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
	type todo struct {
		id   string
		body []byte
	}
	var writes []todo
	seen := map[string]bool{}
	for _, row := range list.Executions {
		fc, ok := facets[row.SessionID]
		if !ok {
			continue
		}
		seen[row.SessionID] = true
		fl := importer.FacetLabel{Execution: row.ID, Session: row.SessionID, Skill: row.Skill, Outcome: fc.Outcome}
		in, ok := fc.Label()
		if !ok {
			fl.Reason = "the outcome says nothing: " + fc.Outcome
			rep.Kept = append(rep.Kept, fl)
			continue
		}
		var x query.Explain
		if _, err := fetch(qf, "/v1/executions/"+row.ID, &x); err != nil {
			return err
		}
		if x.AgentID != "" {
			continue // a subagent's run: the session's outcome is its caller's
		}
		if len(x.Labels) > 0 {
			l := x.Labels[0].Label
			switch {
			case l.Source != reward.SourceInsights:
				fl.Reason = "labelled by hand: " + l.Words()
				rep.Kept = append(rep.Kept, fl)
				continue
			case l.Outcome == in.Outcome && l.Score == *in.Score && l.Note == in.Note:
				fl.Reason = "already imported"
				rep.Kept = append(rep.Kept, fl)
				continue
			}
		}
		body, err := json.Marshal(in)
		if err != nil {
			return err
		}
		writes = append(writes, todo{row.ID, body})
		rep.Labelled = append(rep.Labelled, fl)
	}
	rep.Sessions = len(seen)
	if !dry && len(writes) > 0 {
		c := newClient(qf)
		defer c.Close()
		for _, w := range writes {
			if _, err := c.post(qf, "/v1/executions/"+w.id+"/label", w.body); err != nil {
				return fmt.Errorf("label %s: %w", w.id, err)
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
