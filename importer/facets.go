package importer

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/reward"
)

// FacetsReport is what `sepad import --facets` did (--json prints it):
// Claude Code's /insights facets made labels of their sessions'
// executions (docs/import.md).
type FacetsReport struct {
	Dir string `json:"dir"`
	// Facets counts the facets files read; Sessions those whose session
	// has executions in the store.
	Facets   int `json:"facets"`
	Sessions int `json:"sessions"`
	// Labelled are the executions labelled (or that would be, with
	// --dry-run); Kept those left as they were, with why.
	Labelled []FacetLabel `json:"labelled"`
	Kept     []FacetLabel `json:"kept"`
	// Skipped are the files that could not be used, with why.
	Skipped []FacetSkip `json:"skipped"`
	DryRun  bool        `json:"dry_run"`
}

// FacetLabel is an execution a facet labels, or leaves as it was (Reason).
type FacetLabel struct {
	Execution string `json:"execution"`
	Session   string `json:"session"`
	Skill     string `json:"skill"`
	Outcome   string `json:"outcome"`
	Reason    string `json:"reason,omitempty"`
}

// FacetSkip is a facets file that could not be used.
type FacetSkip struct {
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// ErrNoFacets: a directory without facets files.
var ErrNoFacets = errors.New("no /insights facets")

// ReadFacets reads the facets files (*.json) of dir, by session; a file
// that cannot be used goes to rep.Skipped with why.
func ReadFacets(dir string, rep *FacetsReport) (map[string]reward.Facet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, ErrNoFacets
	}
	facets := map[string]reward.Facet{}
	for _, f := range files {
		fc, err := readFacet(f)
		if err != nil {
			rep.Skipped = append(rep.Skipped, FacetSkip{File: f, Reason: err.Error()})
			continue
		}
		rep.Facets++
		facets[fc.SessionID] = fc
	}
	return facets, nil
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

// FacetRun is an execution of a facet's session, which the facet may
// label.
type FacetRun struct{ ID, Session, Skill string }

// FacetWrite is a label to write: the facet's verdict on one execution.
type FacetWrite struct {
	ID    string
	Input reward.Input
}

// FacetLabels decides what the facets make of runs (the executions,
// newest first): a label on every main-thread run of a facet's session
// that no one labelled by hand and that does not hold the same label
// already. newest says whether a run is a subagent's (whose session's
// outcome is its caller's) and gives its newest label (nil for none).
// rep gets the runs labelled and kept, with why, and the sessions seen.
func FacetLabels(facets map[string]reward.Facet, runs []FacetRun, rep *FacetsReport, newest func(id string) (subagent bool, l *reward.Label, err error)) ([]FacetWrite, error) {
	var writes []FacetWrite
	seen := map[string]bool{}
	for _, run := range runs {
		fc, ok := facets[run.Session]
		if !ok {
			continue
		}
		seen[run.Session] = true
		fl := FacetLabel{Execution: run.ID, Session: run.Session, Skill: run.Skill, Outcome: fc.Outcome}
		in, ok := fc.Label()
		if !ok {
			fl.Reason = "the outcome says nothing: " + fc.Outcome
			rep.Kept = append(rep.Kept, fl)
			continue
		}
		subagent, l, err := newest(run.ID)
		if err != nil {
			return nil, err
		}
		if subagent {
			continue
		}
		if l != nil {
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
		writes = append(writes, FacetWrite{run.ID, in})
		rep.Labelled = append(rep.Labelled, fl)
	}
	rep.Sessions = len(seen)
	return writes, nil
}
