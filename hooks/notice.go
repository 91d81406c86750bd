package hooks

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"strconv"
	"time"
)

// Notices: what sepad did (or would do) to a prompt file, told to the
// person at the start of their next Claude Code session in that project.
// The daemon appends them to NoticesPath(home) under the spool lock
// (AppendNotice); the hook of a SessionStart takes the notices of its
// project out of the file, under the same lock, and answers Claude Code
// with {"systemMessage": "..."} on stdout, which Claude Code shows to the
// user and does not add to the model's context. It is the only time the
// hook prints anything; a notice is shown once.
//
// The file holds one notice per line: the time (Unix nanoseconds), the
// project and the text, separated by tabs, the project and the text as
// JSON strings without their quotes (appendString: no raw tab or newline
// can occur in them). An empty project is shown in any project.
const noticesName = "notices.pending"

// maxNotices bounds the file: beyond it the oldest notices are dropped.
const maxNotices = 200

// maxNoticesBytes bounds what the hook reads of the file.
const maxNoticesBytes = 1 << 20

// noticeLockWait bounds the hook's wait for the lock at SessionStart: a
// busy spool only delays the notices to the next session.
const noticeLockWait = 150 * time.Millisecond

// NoticesPath is the file of pending notices in home.
func NoticesPath(home string) string { return joinPath(home, noticesName) }

// Notice is one pending notice.
type Notice struct {
	Time    time.Time
	Project string
	Text    string
}

// AppendNotice adds a notice for project ("" for any) to home's pending
// notices, under the spool lock (waiting at most timeout).
func AppendNotice(home, project, text string, at time.Time, timeout time.Duration) error {
	if err := ensureHome(home); err != nil {
		return err
	}
	unlock, err := LockSpool(home, timeout)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := readFile(NoticesPath(home), maxNoticesBytes)
	if err != nil && !isNotExist(err) {
		return err
	}
	lines := noticeLines(old)
	if len(lines) >= maxNotices {
		lines = lines[len(lines)-maxNotices+1:]
	}
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	b = strconv.AppendInt(b, at.UnixNano(), 10)
	b = append(b, '\t')
	b = unquoted(appendString(nil, []byte(project)), b)
	b = append(b, '\t')
	b = unquoted(appendString(nil, []byte(text)), b)
	b = append(b, '\n')
	return rewriteNotices(home, b)
}

// PendingNotices returns the notices not shown yet, oldest first.
func PendingNotices(home string) ([]Notice, error) {
	b, err := readFile(NoticesPath(home), maxNoticesBytes)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var out []Notice
	for _, l := range noticeLines(b) {
		if n, ok := parseNotice(l); ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// showNotices writes the SessionStart answer for project, if it has
// pending notices, to w, and removes them from the file. Any failure
// shows nothing and keeps the notices for a later session.
func showNotices(w io.Writer, home string, project []byte) {
	if _, ok := statRegular(NoticesPath(home)); !ok {
		return // the common case: nothing pending, no lock taken
	}
	unlock, err := LockSpool(home, noticeLockWait)
	if err != nil {
		return
	}
	defer unlock()
	b, err := readFile(NoticesPath(home), maxNoticesBytes)
	if err != nil {
		return
	}
	var keep, show [][]byte
	for _, l := range noticeLines(b) {
		_, p, text, ok := splitNotice(l)
		if ok && (len(p) == 0 || bytes.Equal(p, project)) {
			show = append(show, text)
		} else {
			keep = append(keep, l)
		}
	}
	if len(show) == 0 {
		return
	}
	var rest []byte
	for _, l := range keep {
		rest = append(append(rest, l...), '\n')
	}
	// Remove first: a notice may be lost if writing the answer fails, but
	// is never shown twice.
	if rewriteNotices(home, rest) != nil {
		return
	}
	out := append([]byte(nil), `{"systemMessage":"`...)
	for i, t := range show {
		if i > 0 {
			out = append(out, `\n`...)
		}
		out = append(out, t...)
	}
	out = append(out, "\"}\n"...)
	w.Write(out)
}

// rewriteNotices replaces the file's content with b (the caller holds
// the spool lock). An empty b removes the file. The new content is written
// to a temporary file and renamed over the old one, so readers that take
// no lock (`sepad notices`, status) see the old list or the new one, never
// a file cut short.
func rewriteNotices(home string, b []byte) error {
	p := NoticesPath(home)
	if len(b) == 0 {
		if err := removeFile(p); err != nil && !isNotExist(err) {
			return err
		}
		return nil
	}
	tmp := p + ".tmp"
	f, err := openFile(tmp, oTruncCreate, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.write(b); err != nil {
		f.close()
		removeFile(tmp)
		return &fs.PathError{Op: "write", Path: tmp, Err: err}
	}
	if err := f.close(); err != nil {
		removeFile(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		removeFile(tmp)
		return err
	}
	return nil
}

func noticeLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break // a partial last line is not a notice
		}
		if i > 0 {
			out = append(out, b[:i])
		}
		b = b[i+1:]
	}
	return out
}

// splitNotice splits a line into its time, project and text (both still
// JSON-escaped).
func splitNotice(l []byte) (t int64, project, text []byte, ok bool) {
	i := bytes.IndexByte(l, '\t')
	if i < 0 {
		return 0, nil, nil, false
	}
	j := bytes.IndexByte(l[i+1:], '\t')
	if j < 0 {
		return 0, nil, nil, false
	}
	t, err := strconv.ParseInt(string(l[:i]), 10, 64)
	if err != nil {
		return 0, nil, nil, false
	}
	return t, l[i+1 : i+1+j], l[i+2+j:], true
}

func parseNotice(l []byte) (Notice, bool) {
	t, p, text, ok := splitNotice(l)
	if !ok {
		return Notice{}, false
	}
	var n Notice
	n.Time = time.Unix(0, t).UTC()
	if jsonUnquote(quoted(p), &n.Project) != nil || jsonUnquote(quoted(text), &n.Text) != nil {
		return Notice{}, false
	}
	return n, true
}

func quoted(b []byte) []byte { return append(append([]byte{'"'}, b...), '"') }

// unquoted appends the JSON string q without its quotes to b.
func unquoted(q, b []byte) []byte { return append(b, q[1:len(q)-1]...) }

// sessionStartProject reports whether line (an enriched line, compact
// JSON) is a SessionStart event and returns its sepa.project, still
// JSON-escaped as appendString wrote it.
func sessionStartProject(line []byte) (project []byte, ok bool) {
	if len(line) < 2 || line[0] != '{' {
		return nil, false
	}
	var sepa []byte
	for i := 1; i < len(line) && line[i] == '"'; {
		ke := skipString(line, i)
		end := skipValue(line, i, true)
		if end > len(line) || ke >= end {
			return nil, false
		}
		key, val := line[i:ke], line[ke+1:end]
		switch string(key) {
		case `"hook_event_name"`:
			if string(val) != `"SessionStart"` {
				return nil, false
			}
			ok = true
		case `"sepa"`:
			sepa = val
		}
		if end >= len(line) || line[end] != ',' {
			break
		}
		i = end + 1
	}
	if !ok || len(sepa) < 2 || sepa[0] != '{' {
		return nil, ok
	}
	for i := 1; i < len(sepa) && sepa[i] == '"'; {
		ke := skipString(sepa, i)
		end := skipValue(sepa, i, true)
		if end > len(sepa) || ke >= end {
			break
		}
		if string(sepa[i:ke]) == `"project"` {
			v := sepa[ke+1 : end]
			if len(v) >= 2 && v[0] == '"' {
				return v[1 : len(v)-1], true
			}
		}
		if end >= len(sepa) || sepa[end] != ',' {
			break
		}
		i = end + 1
	}
	return nil, true
}
