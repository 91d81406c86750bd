package main

import (
	"fmt"
	"io"

	"github.com/sepad/sepad/query"
)

// fmtStatus is a row's status, with the runs an undecided candidate still
// needs.
func fmtStatus(r *query.GradeRow) string {
	if r.NeededMore != nil {
		return fmt.Sprintf("%s, needs ~%d runs", r.Status, *r.NeededMore)
	}
	return orDash(r.Status)
}

// printPending says, under a table, why each undecided candidate is
// still undecided.
func printPending(w io.Writer, rows []query.GradeRow) {
	for i := range rows {
		if r := &rows[i]; r.Pending != "" {
			fmt.Fprintf(w, "%s: %s\n", r.Skill, r.Pending)
		}
	}
}
