package transcript

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// State is the remembered read position of one transcript file, kept in
// the store (bucket transcripts) and committed with the executions whose
// windows moved it.
type State struct {
	Path   string `json:"path"`
	Offset int64  `json:"offset"`
	// LastMessage is the id of the last assistant message counted.
	LastMessage string `json:"last_message,omitempty"`
}

// Locate returns the transcript of a thread: the session's own file, or,
// for a subagent, <session dir>/<session>/subagents/agent-<agent>.jsonl
// next to it (Claude Code's layout; the subagent's events name the
// session's transcript).
func Locate(sessionTranscript, sessionID, agentID string) string {
	if agentID == "" || sessionTranscript == "" {
		return sessionTranscript
	}
	if strings.ContainsAny(agentID, `/\`) || agentID == ".." || strings.ContainsAny(sessionID, `/\`) || sessionID == ".." {
		return ""
	}
	dir := filepath.Dir(sessionTranscript)
	return filepath.Join(dir, sessionID, "subagents", "agent-"+agentID+".jsonl")
}

// Reason values that say the file is not there yet: worth another look
// while the transcript may still lag behind the hooks.
const (
	ReasonMissing = "transcript missing"
)

// Open opens a transcript for reading, only inside claudeDir/projects
// after resolving links, and only a regular file. It returns the file and
// its size, or a reason it was not opened (a foreign path, a path outside
// the projects directory, a missing or unreadable file): never an error
// that should fail anything.
func Open(claudeDir, path string) (*os.File, int64, string) {
	switch {
	case path == "":
		return nil, 0, "no transcript_path in the events"
	case claudeDir == "":
		return nil, 0, "no Claude Code configuration directory"
	case strings.Contains(path, `\`) && filepath.Separator != '\\', len(path) > 1 && path[1] == ':' && filepath.Separator != '\\':
		return nil, 0, "foreign transcript path (another system's)"
	case !filepath.IsAbs(path):
		return nil, 0, "foreign transcript path (not absolute)"
	}
	projects, err := filepath.EvalSymlinks(filepath.Join(claudeDir, "projects"))
	if err != nil {
		return nil, 0, "no projects directory in the Claude Code configuration directory"
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// Outside the projects directory a missing file is
			// foreign: another machine's path, or a stale one.
			if !inside(projects, filepath.Clean(path)) && !inside(filepath.Join(claudeDir, "projects"), filepath.Clean(path)) {
				return nil, 0, "transcript outside the Claude Code projects directory"
			}
			return nil, 0, ReasonMissing
		}
		return nil, 0, "transcript unreadable: " + shortErr(err)
	}
	if !inside(projects, real) {
		return nil, 0, "transcript outside the Claude Code projects directory"
	}
	rel, err := filepath.Rel(projects, real)
	if err != nil {
		return nil, 0, "transcript outside the Claude Code projects directory"
	}
	// The type is checked before the open, and the open does not block
	// (openNonblock): open(2) of a FIFO for reading waits for a writer,
	// which wedged the collector, SIGTERM unanswered (issue 33). The
	// check after the open covers a file swapped in between.
	if fi, err := os.Stat(real); err == nil && !fi.Mode().IsRegular() {
		return nil, 0, "transcript is not a regular file"
	}
	root, err := os.OpenRoot(projects)
	if err != nil {
		return nil, 0, "transcript unreadable: " + shortErr(err)
	}
	defer root.Close()
	// The root refuses a link swapped in that leads out of the projects
	// directory between the check above and the open.
	f, err := root.OpenFile(rel, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, ReasonMissing
		}
		return nil, 0, "transcript unreadable: " + shortErr(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, "transcript unreadable: " + shortErr(err)
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, "transcript is not a regular file"
	}
	return f, st.Size(), ""
}

func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func shortErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// ReadFile reads the window of one transcript from st's offset. The reason
// is non-empty when nothing could be read; the window is then empty and
// the position unchanged. A file shorter than the offset (truncated or
// replaced) is not read again from its start: the position moves to its
// end and the reason says so.
func ReadFile(claudeDir string, st State, o Options) (Window, State, string) {
	f, size, reason := Open(claudeDir, st.Path)
	if reason != "" {
		return Window{Start: st.Offset, End: st.Offset}, st, reason
	}
	defer f.Close()
	if size < st.Offset {
		nst := State{Path: st.Path, Offset: size}
		return Window{Start: size, End: size}, nst, fmt.Sprintf("transcript truncated: %d bytes, %d read before", size, st.Offset)
	}
	if _, err := f.Seek(st.Offset, io.SeekStart); err != nil {
		return Window{Start: st.Offset, End: st.Offset}, st, "transcript unreadable: " + shortErr(err)
	}
	o.After = st.LastMessage
	w, err := Read(io.LimitReader(f, size-st.Offset), st.Offset, o)
	if err != nil {
		return Window{Start: st.Offset, End: st.Offset}, st, "transcript unreadable: " + shortErr(err)
	}
	return w, State{Path: st.Path, Offset: w.End, LastMessage: w.LastMessage}, ""
}
