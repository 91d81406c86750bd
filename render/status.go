package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render/words"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
)

// StatusView writes `sepad status`: the daemon, the database, the counts
// and the spool's lag.
func StatusView(w io.Writer, s *status.Status) {
	d := s.Daemon
	if d.Running {
		fmt.Fprintf(w, "daemon       running, pid %d, since %s, socket %s", d.PID, Time(d.Started), d.Socket)
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
		fmt.Fprintf(w, "database     %s, %s, schema v%d\n", s.Database, Bytes(s.DatabaseBytes), s.SchemaVersion)
	} else {
		fmt.Fprintf(w, "database     %s: none yet\n", s.Database)
	}
	fmt.Fprintf(w, "rubric       %s\n", s.RubricVersion)
	fmt.Fprintf(w, "skills       %d\n", s.Skills)
	fmt.Fprintf(w, "executions   %d, %d open\n", s.Executions, s.OpenExecutions)
	fmt.Fprintf(w, "quarantined  %s, %d kept (sepad quarantine)\n", Plural(int(s.Quarantined), "line", "lines"), s.QuarantineKept)
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
	fmt.Fprintf(w, "lag          %s, %s\n", Plural(int(s.LagEvents), "event", "events"), Bytes(s.LagBytes))
	for _, u := range s.Undecided {
		fmt.Fprintf(w, "undecided    %s (%s): needs about %s\n", query.DisplayName(u.Skill), OrDash(u.Project), words.MoreRuns(u.NeededMore))
	}
	if len(s.Notices) > 0 {
		fmt.Fprintf(w, "notices      %d pending, shown at the next Claude Code session in their project (sepad notices)\n", len(s.Notices))
	}
	// Said only when something happened: the rest of the output is the
	// same with the daemon up or down.
	if in := s.Daemon.Ingest; in != nil {
		if in.Stalled {
			fmt.Fprintf(w, "ingest       STALLED since %s: the disk holding the database is full (%s); %d lines held, %d attempts, next at %s; free space and it catches up\n",
				Time(in.Since), in.LastError, in.PendingLines, in.Attempts, Time(in.NextRetry))
		} else if in.Stalls > 0 {
			fmt.Fprintf(w, "ingest       ok (stalled %d times on a full disk since start, %d commits refused)\n", in.Stalls, in.FailedCommits)
		}
	}
	if len(s.Spool) == 0 {
		fmt.Fprintln(w, "\nno spool file yet: no hook has run")
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(TrimTrailing(w), 0, 0, 2, ' ', tabwriter.AlignRight)
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

// Notices writes `sepad notices`: the notices not yet shown at a session
// start.
func Notices(w io.Writer, ns []status.NoticeRow) {
	if len(ns) == 0 {
		fmt.Fprintln(w, "no notices pending (sepad decisions lists everything sepad decided)")
		return
	}
	for _, n := range ns {
		where := n.Project
		if where == "" {
			where = "any project"
		}
		fmt.Fprintf(w, "%s  %s\n  %s\n", n.Time.Local().Format("2006-01-02 15:04:05"), where, n.Text)
	}
	fmt.Fprintf(w, "\n%s, each shown once at the start of the next Claude Code session in its project\n", Plural(len(ns), "notice", "notices"))
}

// Quarantine writes `sepad quarantine`: the quarantined spool lines,
// newest first.
func Quarantine(w io.Writer, doc *query.Quarantine) error {
	if doc.Total == 0 {
		fmt.Fprintln(w, "no line quarantined: every spool line was read")
		return nil
	}
	fmt.Fprintf(w, "%s quarantined, %d kept, newest %d shown\n", Plural(int(doc.Total), "line", "lines"), doc.Kept, len(doc.Lines))
	if len(doc.Lines) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw := Table(w)
	fmt.Fprintln(tw, "TIME\tFILE\tOFFSET\tREASON\tRAW HEAD")
	for _, q := range doc.Lines {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", Time(q.Time), q.File, q.Offset, Clip(q.Reason, 60), ClipQuoted(q.Head, 60))
	}
	return tw.Flush()
}

// Forgotten says what `sepad forget` removed.
func Forgotten(w io.Writer, f *store.Forgotten) {
	fmt.Fprintf(w, "forgot %s: %s, %s, %s; its prompt file is left as it is\n", query.DisplayKey(f.Key),
		Plural(f.Executions, "execution", "executions"), Plural(f.Versions, "version", "versions"), Plural(f.Decisions, "decision", "decisions"))
}

// Pruned says what `sepad prune` removed; dry, what it would remove
// (the words of its request for --yes).
func Pruned(p *store.Pruned, dry bool) string {
	what := fmt.Sprintf("%s and %s older than %s", Plural(p.Executions, "execution", "executions"), Plural(p.Quarantined, "quarantined line", "quarantined lines"), Time(p.Before))
	if dry {
		return "would remove " + what + " for good (grades, versions and decisions are kept): add --yes"
	}
	return "pruned " + what + "; grades, versions and decisions are kept"
}
