package execution

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/sepad/sepad/event"
)

// toolEvent records a tool event in the current part, splitting the turn
// when the call invokes a skill.
func (g *Grouper) toolEvent(t *thread, ev *event.Event) {
	if ev.HookEvent == event.Legacy {
		g.legacyEvent(t, ev)
		return
	}
	// A post event for a call we already know.
	if ev.ToolUseID != "" {
		c, x := t.findCall(ev.ToolUseID)
		if c == nil && t.Fork != "" {
			if fx := g.forkTarget(t); fx != nil {
				c, x = fx.findCall(ev.ToolUseID), fx
			}
		}
		if c != nil {
			if ev.HookEvent == event.PreToolUse {
				return // duplicate delivery: deduplicate on tool_use_id
			}
			g.finishCall(c, ev)
			g.touch(x, ev)
			return
		}
	}
	if name, ok := g.invokes(ev); ok && t.Agent == "" {
		g.startPart(t, ev, name, "skill", skillArgs(ev.ToolInput)).InvokedBy = InvokedByClaude
	}
	if t.Agent != "" && t.Fork == "" && t.current() == nil {
		if x := g.forkOf(t); x != nil {
			linkFork(t, x)
		}
	}
	var cur *Execution
	if t.Fork != "" {
		if cur = g.forkTarget(t); cur == nil {
			t.Fork = "" // the skill's execution closed: the agent's own
		}
	}
	if cur == nil {
		cur = t.current()
	}
	if cur == nil {
		cur = g.startPart(t, ev, g.baseSkill(t), g.baseKind(t), "")
	}
	c := newCall(ev)
	if ev.HookEvent == event.PreToolUse {
		c.NoPost = true // until a post event arrives
	} else {
		g.finishCall(&c, ev)
	}
	g.markRetry(cur, &c)
	cur.Calls = append(cur.Calls, c)
	g.touch(cur, ev)
}

// legacyEvent records a line of the original SEPA hook: a finished call of
// the session's base prompt at the version the line names. A version change
// starts a new execution.
func (g *Grouper) legacyEvent(t *thread, ev *event.Event) {
	cur := t.current()
	if cur == nil || cur.SkillVersion != ev.Legacy.Version {
		cur = g.startPart(t, ev, SessionSkill, "session", "")
		cur.SkillVersion = ev.Legacy.Version
	}
	c := ToolCall{Name: ev.ToolName, Start: ev.Time, End: ev.Time, Done: true}
	if !ev.Legacy.OK() {
		c.Failed = true
		c.Error = "exit " + ev.Legacy.Exit
	}
	cur.Calls = append(cur.Calls, c)
	g.touch(cur, ev)
}

func (g *Grouper) finishCall(c *ToolCall, ev *event.Event) {
	c.Done, c.NoPost = true, false
	if !ev.Time.IsZero() {
		c.End = ev.Time
	}
	if ev.HasDuration {
		c.DurationMS, c.HasDuration = ev.DurationMS, true
	}
	if ev.HookEvent == event.PostToolUseFailure {
		c.Failed = true
		c.Error = ev.Error
	}
	if ev.IsInterrupt {
		c.Interrupted = true
	}
	if ev.HookEvent == event.PostToolUse && len(ev.ToolResponse) > 0 && mayHoldError(ev.ToolResponse) {
		c.Response = responseText(ev.ToolResponse, g.opts.MaxResponse, c.Name == "Bash")
	}
}

// markRetry flags c as a retry when an earlier failed call of the same
// execution had the same tool and input.
//
// A rerun after a change is verification, not a retry: an earlier failure
// counts only when no call that changes files (Edit, Write, MultiEdit,
// NotebookEdit) succeeded after it. The fix loop (test fails, edit, test
// passes) has no retry; running the same failing command twice does.
func (g *Grouper) markRetry(x *Execution, c *ToolCall) {
	if c.InputHash == "" {
		return
	}
	for i := len(x.Calls) - 1; i >= 0; i-- {
		p := &x.Calls[i]
		if ChangesFiles(p.Name) && !p.Failed && !p.Interrupted {
			return
		}
		if p.Name == c.Name && p.InputHash == c.InputHash && (p.Failed || p.Interrupted) {
			c.Retry = true
			return
		}
	}
}

// ChangesFiles reports whether a tool edits files (Edit, Write, MultiEdit,
// NotebookEdit): a call of it after a failure makes a rerun of the failed
// call a verification.
func ChangesFiles(tool string) bool {
	switch tool {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}

// findCall finds a call of x by tool_use_id.
func (x *Execution) findCall(id string) *ToolCall {
	for j := range x.Calls {
		if x.Calls[j].ID == id {
			return &x.Calls[j]
		}
	}
	return nil
}

// findCall finds a call of the current turn by tool_use_id.
func (t *thread) findCall(id string) (*ToolCall, *Execution) {
	for i := len(t.Parts) - 1; i >= 0; i-- {
		x := t.Parts[i]
		for j := range x.Calls {
			if x.Calls[j].ID == id {
				return &x.Calls[j], x
			}
		}
	}
	return nil, nil
}

// inputHash identifies a tool input: the first 16 hex digits of the sha256
// of its compacted JSON ("" for no input).
func inputHash(r json.RawMessage) string {
	c := compact(r)
	if len(c) == 0 {
		return ""
	}
	h := sha256.Sum256(c)
	return hex.EncodeToString(h[:8])
}

// errorHints are substrings without which a tool response cannot match
// any error pattern of the rubric; responses without them are not kept.
var errorHints = [][]byte{[]byte("rror"), []byte("ERROR"), []byte("denied"), []byte("not found"), []byte("panic"),
	[]byte("Traceback"), []byte("fault"), []byte("fatal"), []byte("FAIL"), []byte("xception"), []byte("failed"), []byte("unable"),
	// A verification's result (package outcome): npm's failure, a test
	// run that selected nothing.
	[]byte("ERR!"), []byte("no tests"), []byte("ran 0 tests"), []byte("collected 0 items")}

func mayHoldError(r json.RawMessage) bool {
	for _, h := range errorHints {
		if bytes.Contains(r, h) {
			return true
		}
	}
	return false
}

// compact canonicalises a tool input so retries compare equal however the
// payload was spaced, and so saved state compares equal to live state.
func compact(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, r) != nil {
		return r
	}
	return b.Bytes()
}

func skillArgs(input json.RawMessage) string {
	var in struct {
		Args string `json:"args"`
	}
	_ = json.Unmarshal(input, &in)
	return in.Args
}

// maxCommand bounds the command kept of a Bash call.
const maxCommand = 1024

// newCall is the call ev starts. A Bash call's input is decoded once,
// for the command's kind and the command kept.
func newCall(ev *event.Event) ToolCall {
	cmd := bashInput(ev.ToolName, ev.ToolInput)
	return ToolCall{ID: ev.ToolUseID, Name: ev.ToolName, InputHash: inputHash(ev.ToolInput), Start: ev.Time,
		Kind: commandKind(cmd), Command: boundedCommand(cmd)}
}

// boundedCommand is a Bash call's command as it is kept: its first
// maxCommand bytes, valid UTF-8.
func boundedCommand(cmd string) string {
	if len(cmd) > maxCommand {
		cmd = cmd[:maxCommand]
	}
	return strings.ToValidUTF8(cmd, "")
}

// responseText extracts a bounded text from a tool_response: a JSON string,
// the stdout/stderr of Bash, or the raw JSON otherwise. A longer text keeps
// its first max bytes; with tail (a Bash call) its first quarter and last
// three quarters instead, where a test run or a build prints its result.
func responseText(r json.RawMessage, max int, tail bool) string {
	var s string
	if v := bytes.TrimLeft(r, " \t\r\n"); len(v) > 0 && v[0] == '{' {
		// An object (Bash's) is decoded once, not first tried as a
		// string.
		var b struct {
			Stdout string `json:"stdout"`
			Stderr string `json:"stderr"`
		}
		if json.Unmarshal(r, &b) == nil && (b.Stdout != "" || b.Stderr != "") {
			s = b.Stdout + "\n" + b.Stderr
		} else {
			s = string(r)
		}
	} else if json.Unmarshal(r, &s) != nil {
		s = string(r)
	}
	if len(s) > max {
		if tail {
			s = s[:max/4] + "\n…\n" + s[len(s)-(max-max/4):]
		} else {
			s = s[:max]
		}
	}
	return strings.ToValidUTF8(s, "")
}
