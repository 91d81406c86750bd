package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sepad/sepad/internal/claudedir"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/reward"
)

// facetsReport is what `sepad import --facets` did (--json prints it).
type facetsReport struct {
	Dir string `json:"dir"`
	// Facets counts the facets files read; Sessions those whose session
	// has executions in the store.
	Facets   int `json:"facets"`
	Sessions int `json:"sessions"`
	// Labelled are the executions labelled (or that would be, with
	// --dry-run); Kept those left as they were, with why.
	Labelled []facetLabel `json:"labelled"`
	Kept     []facetLabel `json:"kept"`
	// Skipped are the files that could not be used, with why.
	Skipped []facetSkip `json:"skipped"`
	DryRun  bool        `json:"dry_run"`
}

type facetLabel struct {
	Execution string `json:"execution"`
	Session   string `json:"session"`
	Skill     string `json:"skill"`
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason,omitempty"`
}

type facetSkip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

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
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErrorf("no /insights facets in %s (run /insights in Claude Code first, or give the directory)", dir)
	}
	rep := facetsReport{Dir: dir, DryRun: dry, Labelled: []facetLabel{}, Kept: []facetLabel{}, Skipped: []facetSkip{}}
	facets := map[string]reward.Facet{}
	for _, f := range files {
		fc, err := readFacet(f)
		if err != nil {
			rep.Skipped = append(rep.Skipped, facetSkip{File: f, Reason: err.Error()})
			continue
		}
		rep.Facets++
		facets[fc.SessionID] = fc
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
		fl := facetLabel{Execution: row.ID, Session: row.SessionID, Skill: row.Skill, Outcome: fc.Outcome}
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
	printFacets(stdout, rep)
	return nil
}

// readFacet reads one facets file, at most reward.MaxFacet bytes of it.
func readFacet(path string) (reward.Facet, error) {
	f, err := os.Open(path)
	if err != nil {
		return reward.Facet{}, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, reward.MaxFacet+1))
	if err != nil {
		return reward.Facet{}, err
	}
	fc, err := reward.ParseFacet(path, b)
	if errors.Is(err, reward.ErrBadFacet) {
		return reward.Facet{}, errors.New(strings.TrimPrefix(err.Error(), reward.ErrBadFacet.Error()+": "))
	}
	return fc, err
}

func printFacets(w io.Writer, rep facetsReport) {
	fmt.Fprintf(w, "read %s from %s: %s with executions here\n", plural(rep.Facets, "facet", "facets"), rep.Dir, plural(rep.Sessions, "session", "sessions"))
	verb := "labelled"
	if rep.DryRun {
		verb = "dry run: would label"
	}
	fmt.Fprintf(w, "%s %s (source insights)\n", verb, plural(len(rep.Labelled), "execution", "executions"))
	for _, l := range rep.Labelled {
		fmt.Fprintf(w, "  %s  %s  %s\n", l.Execution, l.Skill, l.Outcome)
	}
	reasons := map[string]int{}
	for _, k := range rep.Kept {
		r := k.Reason
		if i := strings.Index(r, ":"); i > 0 {
			r = r[:i]
		}
		reasons[r]++
	}
	var keys []string
	for r := range reasons {
		keys = append(keys, r)
	}
	sort.Strings(keys)
	for _, r := range keys {
		fmt.Fprintf(w, "left %s as they were: %s\n", plural(reasons[r], "execution", "executions"), r)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.File, s.Reason)
	}
}
