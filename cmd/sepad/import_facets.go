package main

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/render"
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
	rep, err := client.ImportFacets(qf.home, qf.config, dir, dry)
	if errors.Is(err, importer.ErrNoFacets) {
		return usageErrorf("no /insights facets in %s (run /insights in Claude Code first, or give the directory)", dir)
	}
	if err != nil {
		return err
	}
	if qf.json {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return printJSON(stdout, b)
	}
	render.Facets(stdout, rep)
	return nil
}
