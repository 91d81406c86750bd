package main

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/importer"
	"github.com/sepad/sepad/render"
)

func init() {
	register("import", "import existing hook logs (hooks-mastery logs/*.json arrays, JSONL hook logs) into the store, once; --facets: /insights outcomes as labels", runImport)
}

// runImport is `sepad import PATH...`: read the logs (files, or the
// *.json, *.jsonl and *.log files of a directory), put them in one order,
// and POST them to /v1/import: the daemon's collector feeds them through
// its pipeline, or, with no daemon, the CLI's own over the database
// (created if missing). It prints what it read, skipped, left out as
// already there, and added (docs/import.md).
func runImport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("import", stderr)
	var qf queryFlags
	qf.add(fs)
	dry := fs.Bool("dry-run", false, "read and report, import nothing")
	facets := fs.Bool("facets", false, "import Claude Code's /insights facets (<claude config dir>/usage-data/facets, or the DIR given) as labels of their sessions' executions")
	claudeEval := fs.String("claude-eval", "", "record `FILE`, an aggregate-result.json of claude plugin eval, as evidence for SKILL's current version (sepad import --claude-eval FILE SKILL)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *facets {
		return importFacets(qf, pos, *dry, stdout) // import_facets.go
	}
	if *claudeEval != "" {
		return importClaudeEval(qf, *claudeEval, pos, stdout) // eval.go
	}
	if len(pos) == 0 {
		return usageErrorf("needs a PATH: a log file or a logs/ directory")
	}
	recs, rep, err := importer.Load(pos)
	if errors.Is(err, importer.ErrNoLogs) {
		return usageErrorf("%v", err)
	}
	if err != nil {
		return err
	}
	if !*dry && len(recs) > 0 {
		c := client.New(qf.home, qf.config)
		defer c.Close()
		done, err := c.Import(recs)
		if err != nil {
			return err
		}
		rep.Add(done)
	}
	if qf.json {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		return printJSON(stdout, b)
	}
	render.Import(stdout, rep, *dry)
	return nil
}
