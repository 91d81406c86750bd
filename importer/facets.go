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
