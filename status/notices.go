package status

import (
	"time"

	"github.com/sepad/sepad/spool"
)

// NoticeRow is a notice waiting for the person: shown once, at the start
// of their next Claude Code session in Project ("" for any project).
type NoticeRow struct {
	Time    time.Time `json:"time"`
	Project string    `json:"project"`
	Text    string    `json:"text"`
}

// pendingNotices reads home's pending notices (spool.PendingNotices); an
// unreadable file reads as none.
func pendingNotices(home string) []NoticeRow {
	ns, _ := spool.PendingNotices(home)
	out := make([]NoticeRow, 0, len(ns))
	for _, n := range ns {
		out = append(out, NoticeRow{Time: n.Time, Project: n.Project, Text: n.Text})
	}
	return out
}

// PendingNotices returns the notices of home not shown yet (those of
// GET /v1/status), without the rest of the status.
func PendingNotices(home string) []NoticeRow { return pendingNotices(home) }
