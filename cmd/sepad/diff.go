package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/query"
)

func init() {
	register("diff", "compare two versions of a skill: SKILL A B", runDiff)
}

// runDiff is `sepad diff SKILL A B`: GET /v1/skills/{skill}/diff?from=A&to=B,
// printed as a unified diff.
func runDiff(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("diff", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usageErrorf("diff takes a SKILL and two versions (vN or a hash), e.g. sepad diff deploy v1 v2")
	}
	var doc query.Diff
	v := url.Values{"from": {pos[1]}, "to": {pos[2]}}
	body, err := fetch(qf, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/diff?"+v.Encode(), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	printDiff(stdout, &doc)
	return nil
}

func printDiff(w io.Writer, d *query.Diff) {
	if len(d.Edits) > 0 {
		fmt.Fprintf(w, "# the mutator's %d edits of v%d:\n", len(d.Edits), d.From.Version)
		for i, e := range d.Edits {
			what := e.Passage
			if e.Op == "add" {
				what = e.Text
			}
			fmt.Fprintf(w, "# %d. %s %q", i+1, e.Op, what)
			if e.Op == "replace" {
				fmt.Fprintf(w, " with %q", e.Text)
			}
			if e.Reason != "" {
				fmt.Fprintf(w, ": %s", e.Reason)
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "--- %s v%d (%s)\n+++ %s v%d (%s)\n", d.Skill.Name, d.From.Version, d.From.Hash, d.Skill.Name, d.To.Version, d.To.Hash)
	for _, h := range d.Hunks {
		fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(h.FromLine, h.FromCount), hunkRange(h.ToLine, h.ToCount))
		for _, l := range h.Lines {
			fmt.Fprintf(w, "%s%s\n", l.Op, l.Text)
		}
	}
}

// hunkRange is a unified diff's "l,s" (just "l" when s is 1).
func hunkRange(line, count int) string {
	if count == 1 {
		return fmt.Sprint(line)
	}
	return fmt.Sprintf("%d,%d", line, count)
}
