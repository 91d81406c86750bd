package hooks

import (
	"io"
	"strings"
	"time"

	"github.com/sepad/sepad/spool"
)

// noticeLockWait bounds the hook's wait for the lock at SessionStart: a
// busy spool only delays the notices to the next session.
const noticeLockWait = 150 * time.Millisecond

// showNotices answers a SessionStart in project with its pending notices
// (spool.TakeNotices): {"systemMessage": "..."} on w, which Claude Code
// shows to the person and does not add to the model's context. It is the
// only time the hook prints anything; with nothing pending it prints
// nothing.
func showNotices(w io.Writer, home, project string) {
	show := spool.TakeNotices(home, project, noticeLockWait)
	if len(show) == 0 {
		return
	}
	answer := struct {
		SystemMessage string `json:"systemMessage"`
	}{strings.Join(show, "\n")}
	w.Write(append(appendJSON(nil, answer), '\n'))
}
