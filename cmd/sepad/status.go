package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

func init() {
	register("status", "daemon, spool lag, database and counts", runStatus)
}

func runStatus(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("status", stderr)
	var qf queryFlags
	qf.add(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: sepad status [--json]")
		fs.PrintDefaults()
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("status takes no arguments")
	}
	var doc query.Status
	body, err := fetch(qf, "/v1/status", &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	printStatus(stdout, &doc)
	return nil
}

func printStatus(w io.Writer, s *query.Status) {
	d := s.Daemon
	if d.Running {
		fmt.Fprintf(w, "daemon       running, pid %d, since %s, socket %s", d.PID, fmtTime(d.Started), d.Socket)
		if d.HTTP != "" {
			fmt.Fprintf(w, ", http %s", d.HTTP)
		}
		if d.Build != nil {
			fmt.Fprintf(w, ", sepad %s", d.Build.Version)
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "daemon       not running (read the database directly)")
	}
	fmt.Fprintf(w, "home         %s\n", s.Home)
	if s.DatabaseBytes > 0 {
		fmt.Fprintf(w, "database     %s, %s, schema v%d\n", s.Database, fmtBytes(s.DatabaseBytes), s.SchemaVersion)
	} else {
		fmt.Fprintf(w, "database     %s: none yet\n", s.Database)
	}
	fmt.Fprintf(w, "rubric       %s\n", s.RubricVersion)
	fmt.Fprintf(w, "skills       %d\n", s.Skills)
	fmt.Fprintf(w, "executions   %d, %d open\n", s.Executions, s.OpenExecutions)
	fmt.Fprintf(w, "quarantined  %d lines, %d kept (sepad quarantine)\n", s.Quarantined, s.QuarantineKept)
	var evs []string
	for k := range s.Events {
		evs = append(evs, k)
	}
	sort.Strings(evs)
	var parts []string
	for _, k := range evs {
		parts = append(parts, fmt.Sprintf("%s %d", k, s.Events[k]))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(w, "events       %s\n", strings.Join(parts, ", "))
	fmt.Fprintf(w, "lag          %d events, %s\n", s.LagEvents, fmtBytes(s.LagBytes))
	for _, u := range s.Undecided {
		fmt.Fprintf(w, "undecided    %s (%s): needs about %s\n", u.Skill, orDash(u.Project), mutation.MoreRuns(u.NeededMore))
	}
	if len(s.Notices) > 0 {
		fmt.Fprintf(w, "notices      %d pending, shown at the next Claude Code session in their project (sepad notices)\n", len(s.Notices))
	}
	// Said only when something happened: the rest of the output is the
	// same with the daemon up or down.
	if in := s.Daemon.Ingest; in != nil {
		if in.Stalled {
			fmt.Fprintf(w, "ingest       STALLED since %s: the disk holding the database is full (%s); %d lines held, %d attempts, next at %s; free space and it catches up\n",
				fmtTime(in.Since), in.LastError, in.PendingLines, in.Attempts, fmtTime(in.NextRetry))
		} else if in.Stalls > 0 {
			fmt.Fprintf(w, "ingest       ok (stalled %d times on a full disk since start, %d commits refused)\n", in.Stalls, in.FailedCommits)
		}
	}
	if len(s.Spool) == 0 {
		fmt.Fprintln(w, "\nno spool file yet: no hook has run")
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "OFFSET\tSIZE\tLAG BYTES\tLAG EVENTS\t  FILE")
	for _, f := range s.Spool {
		size := fmt.Sprint(f.Size)
		if f.Size < 0 {
			size = "gone"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t  %s\n", f.Offset, size, f.LagBytes, f.LagEvents, f.File)
	}
	tw.Flush()
}
