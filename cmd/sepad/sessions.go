package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

func init() {
	register("sessions", "Claude Code sessions seen, most recent first", runSessions)
}

func runSessions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("sessions", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "sessions to list")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad sessions [--limit N] [--json]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("sessions takes no arguments")
	}
	var doc query.Sessions
	body, err := fetch(qf, fmt.Sprintf("/v1/sessions?limit=%d", *limit), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	if len(doc.Sessions) == 0 {
		fmt.Fprintln(stdout, "no sessions yet")
		return nil
	}
	var projects []string
	for _, s := range doc.Sessions {
		projects = append(projects, s.Project)
	}
	pl := projectLabels(projects)
	tw := tabwriter.NewWriter(trimTrailing(stdout), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tPROJECT\tFIRST\tLAST\tEXECUTIONS\tSKILLS")
	for _, s := range doc.Sessions {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", s.ID, pl[s.Project], fmtTimePtr(s.First), fmtTimePtr(s.Last), s.Executions, clip(strings.Join(s.Skills, ", "), 60))
	}
	return tw.Flush()
}
