package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/query"
)

func init() {
	register("versions", "list a skill's versions with their aggregates and status", runVersions)
}

func runVersions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	db, sk, _, err := m.readSkill("versions", "sepad versions SKILL [--json]", args, 1, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := mutation.Statuses(db, sk.Key)
	if err != nil {
		return err
	}
	type row struct {
		Version   string  `json:"version"`
		Hash      string  `json:"hash"`
		Status    string  `json:"status"`
		Source    string  `json:"source"`
		Parent    string  `json:"parent,omitempty"`
		FirstSeen string  `json:"first_seen,omitempty"`
		N         int     `json:"n"`
		Aggregate float64 `json:"aggregate"`
		Grade     string  `json:"grade"`
		Current   bool    `json:"current"`
		Content   bool    `json:"content_known"`
	}
	var rows []row
	inFile := sk.Current
	if h, ok := query.InForce(sk); ok {
		inFile = h // the file's content now, not the version that ran last
	}
	for _, v := range sk.Versions {
		g := "-"
		if v.Aggregate.Graded {
			g = string(fitness.GradeOf(v.Aggregate.Value))
		}
		r := row{Version: fmt.Sprintf("v%d", v.Seq), Hash: v.Hash, Status: st[v.Hash], Source: v.Source, Parent: v.Parent,
			N: v.Aggregate.N, Aggregate: v.Aggregate.Value, Grade: g, Current: v.Hash == inFile, Content: v.ContentKnown}
		if !v.FirstSeen.IsZero() {
			r.FirstSeen = v.FirstSeen.Format(time.RFC3339)
		}
		rows = append(rows, r)
	}
	if m.json {
		return writeJSON(stdout, map[string]any{"skill": sk.Key, "name": sk.Name, "versions": rows})
	}
	fmt.Fprintf(stdout, "%s (%s)\n", sk.Name, sk.Key)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tHASH\tSTATUS\tSOURCE\tN\tAGGREGATE\tGRADE\tFIRST SEEN\t")
	for _, r := range rows {
		cur := ""
		if r.Current {
			cur = " *"
		}
		status := r.Status
		if status == "" {
			status = "-"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%d\t%.2f\t%s\t%s\t\n", r.Version, cur, r.Hash, status, r.Source, r.N, r.Aggregate, r.Grade, r.FirstSeen)
	}
	tw.Flush()
	fmt.Fprintln(stdout, "* = the version in the file now")
	return nil
}
