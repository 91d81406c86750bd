package spool

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Notices: what sepad did (or would do) to a prompt file, told to the
// person at the start of their next Claude Code session in that project.
// The daemon appends them to NoticesPath(home) under the spool lock
// (AppendNotice); the hook of a SessionStart takes the notices of its
// project out of the file, under the same lock (TakeNotices), and answers Claude Code
// with {"systemMessage": "..."} on stdout, which Claude Code shows to the
// user and does not add to the model's context. It is the only time the
// hook prints anything; a notice is shown once.
//
// The file holds one notice per line, as JSON:
// {"time":"<RFC 3339>","project":"<project>","text":"<text>"}. An empty
// project is shown in any project. (Lines written before 2026-11-24 are
// the time in Unix nanoseconds, the project and the text, separated by
// tabs, the project and the text JSON strings without their quotes; they
// are still read.)
const noticesName = "notices.pending"

// maxNotices bounds the file: beyond it the oldest notices are dropped.
const maxNotices = 200

// maxNoticesBytes bounds what the hook reads of the file.
const maxNoticesBytes = 1 << 20

// NoticesPath is the file of pending notices in home.
func NoticesPath(home string) string { return filepath.Join(home, noticesName) }

// Notice is one pending notice.
type Notice struct {
	Time    time.Time
	Project string
	Text    string
}

// noticeLine is a notice as the file holds it.
type noticeLine struct {
	Time    time.Time `json:"time"`
	Project string    `json:"project"`
	Text    string    `json:"text"`
}

// AppendNotice adds a notice for project ("" for any) to home's pending
// notices, under the spool lock (waiting at most timeout).
func AppendNotice(home, project, text string, at time.Time, timeout time.Duration) error {
	if err := ensureHome(home); err != nil {
		return err
	}
	unlock, err := Lock(home, timeout)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := readRegular(NoticesPath(home), maxNoticesBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
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
	b = appendJSON(b, noticeLine{at.UTC(), project, text})
	b = append(b, '\n')
	return rewriteNotices(home, b)
}

// PendingNotices returns the notices not shown yet, oldest first.
func PendingNotices(home string) ([]Notice, error) {
	b, err := readRegular(NoticesPath(home), maxNoticesBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
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

// TakeNotices removes the notices for project (and those for any
// project) from home's pending notices, under the spool lock waiting at
// most wait, and returns their texts, oldest first: what the hook shows
// at a SessionStart. Any failure takes nothing and keeps the notices for
// a later session; a notice is removed before it is returned, so it may be
// lost if showing it fails, but is never shown twice.
func TakeNotices(home, project string, wait time.Duration) []string {
	if fi, err := os.Stat(NoticesPath(home)); err != nil || !fi.Mode().IsRegular() {
		return nil // the common case: nothing pending, no lock taken
	}
	unlock, err := Lock(home, wait)
	if err != nil {
		return nil
	}
	defer unlock()
	b, err := readRegular(NoticesPath(home), maxNoticesBytes)
	if err != nil {
		return nil
	}
	var keep [][]byte
	var show []string
	for _, l := range noticeLines(b) {
		n, ok := parseNotice(l)
		if ok && (n.Project == "" || n.Project == project) {
			show = append(show, n.Text)
		} else {
			keep = append(keep, l)
		}
	}
	if len(show) == 0 {
		return nil
	}
	var rest []byte
	for _, l := range keep {
		rest = append(append(rest, l...), '\n')
	}
	if rewriteNotices(home, rest) != nil {
		return nil
	}
	return show
}

// rewriteNotices replaces the file's content with b (the caller holds
// the spool lock). An empty b removes the file. The new content is written
// to a temporary file and renamed over the old one, so readers that take
// no lock (`sepad notices`, status) see the old list or the new one, never
// a file cut short.
func rewriteNotices(home string, b []byte) error {
	p := NoticesPath(home)
	if len(b) == 0 {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
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

// parseNotice reads one line of the file.
func parseNotice(l []byte) (Notice, bool) {
	var n noticeLine
	if json.Unmarshal(l, &n) == nil {
		return Notice{n.Time.UTC(), n.Project, n.Text}, true
	}
	// A line written before 2026-11-24: time, project, text.
	f := strings.Split(string(l), "\t")
	if len(f) != 3 {
		return Notice{}, false
	}
	t, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || json.Unmarshal([]byte(`"`+f[1]+`"`), &n.Project) != nil || json.Unmarshal([]byte(`"`+f[2]+`"`), &n.Text) != nil {
		return Notice{}, false
	}
	return Notice{time.Unix(0, t).UTC(), n.Project, n.Text}, true
}

// appendJSON appends v's JSON to b, without escaping <, > and & (a
// notice's text is read back, not put in a page).
func appendJSON(b []byte, v any) []byte {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // a noticeLine always encodes
	}
	out := buf.Bytes()
	return out[:len(out)-1]
}
