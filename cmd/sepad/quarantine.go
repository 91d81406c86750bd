package main

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

func init() {
	register("quarantine", "list quarantined spool lines, newest first (file, offset, reason, raw head)", runQuarantine)
}

func runQuarantine(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("quarantine", stderr)
	var qf queryFlags
	qf.add(fs)
	limit := fs.Int("limit", query.DefaultLimit, "lines to list")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad quarantine [--limit N] [--json]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("quarantine takes no arguments")
	}
	var doc query.Quarantine
	body, err := fetch(qf, fmt.Sprintf("/v1/quarantine?limit=%d", *limit), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	fmt.Fprintf(stdout, "%d lines quarantined, %d kept, newest %d shown\n", doc.Total, doc.Kept, len(doc.Lines))
	if len(doc.Lines) == 0 {
		return nil
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(trimTrailing(stdout), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tFILE\tOFFSET\tREASON\tRAW HEAD")
	for _, q := range doc.Lines {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", fmtTime(q.Time), q.File, q.Offset, clip(q.Reason, 60), clipQuoted(q.Head, 60))
	}
	return tw.Flush()
}

// clipQuoted shows raw text as a Go-quoted string (control characters and
// tabs visible), cut to about n characters.
func clipQuoted(s string, n int) string {
	q := strconv.Quote(s)
	r := []rune(q)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return q
}
