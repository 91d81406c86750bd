package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/gate"
	"github.com/sepad/sepad/render"
)

func init() {
	register("grades", "grade of every skill's current version (or every version); --fail-under gates CI", runGrades)
}

// parseGate reads --fail-under: a bad value is a usage error.
func parseGate(s string) (*gate.Gate, error) {
	g, err := gate.Parse(s)
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return g, nil
}

// gateExit gives a gate's verdict its exit status: 1 below it, 3 when
// there was nothing to judge.
func gateExit(err error) error {
	var f *gate.Failed
	if !errors.As(err, &f) {
		return err
	}
	code := exitFail
	if f.Nothing {
		code = exitNothingToGate
	}
	return &exitError{code: code, err: err}
}

func runGrades(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("grades", stderr)
	var qf queryFlags
	qf.add(fs)
	all := fs.Bool("all-versions", false, "one row per version instead of one per skill")
	failUnder := fs.String("fail-under", "", "exit 1 when a selected skill's current version grades or scores below `GRADE|SCORE`")
	teamView := fs.Bool("team", false, "every machine's runs pooled, from the team database (team.postgres; docs/team.md)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("takes at most one SKILL, got %d arguments", len(pos))
	}
	g, err := parseGate(*failUnder)
	if err != nil {
		return err
	}
	if *teamView {
		match := ""
		if len(pos) == 1 {
			match = pos[0]
		}
		if g != nil {
			return usageErrorf("--team and --fail-under: the gate reads this machine's grades")
		}
		return teamGrades(qf, match, *all, stdout)
	}
	v := url.Values{}
	if len(pos) == 1 {
		v.Set("match", skillArgument(pos[0]))
	}
	if *all {
		v.Set("all_versions", "true")
	}
	// The table alone is asked for drawn (format=text): the daemon renders
	// it once per store generation, and this process only copies it out
	// instead of decoding a document of 1,000 rows (BENCHMARKS.md). --json
	// and the gate read the document.
	table := !qf.json && g == nil
	if table {
		v.Set("format", "text")
	} else if g == nil {
		v.Set("indent", "true") // --json alone: the document as it prints
	}
	path := "/v1/skills"
	if len(v) > 0 {
		path += "?" + v.Encode()
	}
	c := client.New(qf.home, qf.config)
	defer c.Close()
	body, ctype, err := c.GetTyped(path)
	if err != nil {
		if g != nil && client.IsNotFound(err) {
			return &exitError{code: exitNothingToGate, err: fmt.Errorf("nothing to gate: %w", err)}
		}
		return err
	}
	if table && strings.HasPrefix(ctype, "text/plain") {
		_, err := stdout.Write(body)
		return err
	}
	// A daemon older than format=text answers JSON: drawn here then.
	if qf.json {
		if g == nil && bytes.HasPrefix(body, []byte("{\n")) {
			_, err := stdout.Write(body) // indented by the daemon (indent=true)
			return err
		}
		if err := printJSON(stdout, body); err != nil || g == nil {
			return err // --json alone decodes nothing: the document goes out as it came
		}
	}
	doc, err := render.DecodeGrades(body)
	if err != nil {
		return err
	}
	if !qf.json {
		render.Grades(stdout, doc, *all)
	}
	if g == nil {
		return nil
	}
	return gateExit(g.Grades(doc, len(pos) == 1))
}
