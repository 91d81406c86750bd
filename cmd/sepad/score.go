package main

import (
	"encoding/json"
	"io"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/daemon"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/scoring"
)

func init() {
	register("score", "score the executions in JSONL hook logs, offline", runScore)
}

func runScore(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("score", stderr)
	asJSON := fs.Bool("json", false, "print one JSON document")
	explain := fs.Bool("explain", false, "print every signal of every execution")
	noTranscripts := fs.Bool("no-transcripts", false, "do not read the session transcripts (tokens, cost, calls refused before any hook)")
	cfgPath := fs.String("config", "", "configuration `FILE` (default $SEPA_CONFIG, then $XDG_CONFIG_HOME/sepa/config.yaml)")
	failUnder := fs.String("fail-under", "", "exit 1 when a skill's last version grades or scores below `GRADE|SCORE`, 3 when nothing is graded")
	gateSkill := fs.String("skill", "", "gate only this `SKILL` (a name, PROJECT#name or the prompt file's path)")
	files, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return usageErrorf("needs at least one FILE (- for stdin)")
	}
	g, err := parseGate(*failUnder)
	if err != nil {
		return err
	}
	if *gateSkill != "" && g == nil {
		return usageErrorf("--skill selects what --fail-under gates: give --fail-under too")
	}
	cfg, err := config.Load(config.Path(*cfgPath))
	if err != nil {
		return err
	}
	tr := scoring.OfflineTracker(cfg)
	if *noTranscripts {
		tr = nil
	}
	rep, err := scoring.New(cfg).Files(files, stdin, tr)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		render.ScoreTable(stdout, rep, *explain)
	}
	if err != nil || g == nil {
		return err
	}
	return gateExit(g.Scores(rep, *gateSkill, daemon.AggregateOptions(cfg)))
}
