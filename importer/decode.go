// Package importer reads hook logs other tools wrote (the hooks-mastery
// template's per-event JSON arrays, plain JSONL hook logs, sepad's own
// spool) into hook payloads in one time order, ready for the collector's
// pipeline (docs/import.md). Decoding is pure (DecodeFile, Prepare); Load
// reads the files.
package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// Record is one hook payload read from a log, as the collector ingests
// it. Its JSON form is the wire format of POST /v1/import (one per line).
type Record struct {
	// Payload is the hook's stdin payload: unwrapped from raw_input or
	// _raw_input, without the logger's logged_at/timestamp, mojibake
	// repaired, hook_event_name filled in from the file name when missing.
	Payload json.RawMessage `json:"payload"`
	// Time is the logger's logged_at or timestamp (or sepa.ts, or a legacy
	// line's ts); zero when the log has none.
	Time time.Time `json:"time,omitzero"`
	// File and Index locate the payload: the file's path and the element's
	// index in its array (from 1), or the line number in a JSONL file.
	File  string `json:"file"`
	Index int    `json:"index"`
	// Session and Event are the payload's session_id and hook_event_name.
	Session string `json:"session"`
	Event   string `json:"event"`
	// ToolUseID is the payload's tool_use_id, or one given by Prepare to a
	// Pre and Post it paired by order, tool name and input.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Unknown marks a PreToolUse without a post event in a part of its
	// session the log holds no post events for: its outcome is unknown.
	Unknown bool `json:"unknown,omitempty"`
	// FailuresOnly is set with Unknown when the session's log records
	// failures (PostToolUseFailure) but no success (PostToolUse): the
	// session's calls of known outcome are its failures alone, so its
	// executions get no tool-success rate (execution.FailuresOnly).
	FailuresOnly bool `json:"failures_only,omitempty"`
	// Key identifies the event for deduplication: session, event and
	// tool_use_id, or, for an event without one, the payload's hash, the
	// file's name and the place in it. Set by Prepare.
	Key string `json:"key"`

	rank int // the file's place in the documented order
}

// Skip is a payload or part of a file not imported, and why.
type Skip struct {
	File   string `json:"file"`
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

// FileReport says what was read from one file.
type FileReport struct {
	Path string `json:"path"`
	// Shape is "array" (one JSON array, the hooks-mastery form), "jsonl"
	// or "empty".
	Shape    string `json:"shape"`
	Payloads int    `json:"payloads"`
	// Truncated is set when the array ends early (a write cut short).
	Truncated bool `json:"truncated,omitempty"`
	// Encoding is set when the file was not UTF-8: "utf-16le", "utf-16be"
	// or "windows-1252".
	Encoding string `json:"encoding,omitempty"`
	// Repaired counts strings whose mojibake was repaired.
	Repaired int `json:"repaired,omitempty"`
}

// maxSkipRaw bounds the text of a payload quoted in a reason.
const maxSkipRaw = 60

// DecodeFile decodes one log file: a JSON array of payloads (pretty
// printed or not; a truncated array keeps the elements before the cut),
// or JSON lines. name is used in reports and to infer the event of
// payloads without hook_event_name (pre_tool_use.json: PreToolUse).
func DecodeFile(name string, data []byte) ([]Record, []Skip, FileReport) {
	rep := FileReport{Path: name}
	data, rep.Encoding = toUTF8(data)
	trim := bytes.TrimSpace(data)
	var recs []Record
	var skips []Skip
	fileEvent := eventOfFile(name)
	rank := rankOf(name)
	add := func(idx int, raw []byte) {
		r, repaired, err := decodePayload(raw, fileEvent)
		rep.Repaired += repaired
		if err != nil {
			skips = append(skips, Skip{File: name, Index: idx, Reason: err.Error()})
			return
		}
		r.File, r.Index, r.rank = name, idx, rank
		recs = append(recs, r)
	}
	switch {
	case len(trim) == 0:
		rep.Shape = "empty"
	case trim[0] == '[':
		rep.Shape = "array"
		dec := json.NewDecoder(bytes.NewReader(trim))
		idx := 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if d, ok := tok.(json.Delim); err != nil || !ok || d != '[' {
				skips = append(skips, Skip{File: name, Index: idx + 1, Reason: fmt.Sprintf("trailing data after the array at byte %d", dec.InputOffset())})
				break
			}
			done := false
			for dec.More() {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					rep.Truncated = true
					skips = append(skips, Skip{File: name, Index: idx + 1,
						Reason: fmt.Sprintf("truncated array: it ends inside element %d (byte %d): %s", idx+1, dec.InputOffset(), short(err.Error()))})
					done = true
					break
				}
				idx++
				add(idx, raw)
			}
			if done {
				break
			}
			if _, err := dec.Token(); err != nil { // the closing ]
				rep.Truncated = true
				skips = append(skips, Skip{File: name, Index: idx + 1,
					Reason: fmt.Sprintf("truncated array: no closing ] after element %d", idx)})
				break
			}
		}
	default:
		rep.Shape = "jsonl"
		for i, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			add(i+1, line)
		}
	}
	rep.Payloads = len(recs)
	return recs, skips, rep
}

// toUTF8 turns a UTF-16 file (with its byte order mark, as PowerShell
// writes) or a Windows-1252 file into UTF-8, and drops a UTF-8 BOM.
func toUTF8(b []byte) ([]byte, string) {
	switch {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		b = b[3:]
	case len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF):
		le := b[0] == 0xFF
		u := make([]uint16, 0, len(b)/2)
		for i := 2; i+1 < len(b); i += 2 {
			if le {
				u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				u = append(u, uint16(b[i])<<8|uint16(b[i+1]))
			}
		}
		enc := "utf-16be"
		if le {
			enc = "utf-16le"
		}
		return []byte(string(utf16.Decode(u))), enc
	}
	if utf8.Valid(b) {
		return b, ""
	}
	d, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		return b, ""
	}
	return d, "windows-1252"
}

// decodePayload unwraps, cleans and checks one element or line.
func decodePayload(raw []byte, fileEvent string) (Record, int, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return r, 0, fmt.Errorf("invalid JSON: %s", short(err.Error()))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return r, 0, fmt.Errorf("not a JSON object: %s", quoteRaw(raw))
	}
	// The logger's time, outside or inside the wrapper.
	when := takeTime(m)
	for _, k := range []string{"raw_input", "_raw_input"} {
		w, ok := m[k]
		if !ok {
			continue
		}
		if s, isStr := w.(string); isStr {
			d := json.NewDecoder(strings.NewReader(s))
			d.UseNumber()
			if d.Decode(&w) != nil {
				return r, 0, fmt.Errorf("%s is a string that is not JSON: %s", k, quoteRaw([]byte(s)))
			}
		}
		inner, ok := w.(map[string]any)
		if !ok {
			return r, 0, fmt.Errorf("%s is not a JSON object", k)
		}
		if t := takeTime(inner); !t.IsZero() && when.IsZero() {
			when = t
		}
		m = inner
		break
	}
	repaired := 0
	repairAll(m, &repaired)
	if _, ok := m["tool"]; ok && m["hook_event_name"] == nil && m["session_id"] == nil {
		// A line of the original SEPA hook: its own format (event.ParseLine).
		r.Event = "SEPALegacy"
		r.Session, _ = m["session"].(string)
		if ts, _ := m["ts"].(string); ts != "" && when.IsZero() {
			when = parseTime(ts)
		}
	} else {
		if name, _ := m["hook_event_name"].(string); name == "" && fileEvent != "" {
			m["hook_event_name"] = fileEvent
		}
		r.Event, _ = m["hook_event_name"].(string)
		r.Session, _ = m["session_id"].(string)
		r.ToolUseID, _ = m["tool_use_id"].(string)
		if s, ok := m["sepa"].(map[string]any); ok && when.IsZero() {
			if ts, _ := s["ts"].(string); ts != "" {
				when = parseTime(ts)
			}
		}
	}
	if r.Event == "" {
		return r, 0, fmt.Errorf("no hook_event_name (not a hook payload): %s", quoteRaw(raw))
	}
	if r.Session == "" {
		return r, 0, fmt.Errorf("%s without session_id", r.Event)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return r, 0, fmt.Errorf("re-encode: %w", err)
	}
	r.Payload = bytes.TrimSpace(b.Bytes())
	r.Time = when
	return r, repaired, nil
}

// takeTime removes and parses the logger's time keys of m.
func takeTime(m map[string]any) time.Time {
	var t time.Time
	for _, k := range []string{"logged_at", "timestamp"} {
		v, ok := m[k]
		if !ok {
			continue
		}
		var got time.Time
		switch x := v.(type) {
		case string:
			got = parseTime(x)
		case json.Number:
			got = parseTime(x.String())
		}
		if got.IsZero() {
			continue // not a time: keep the key, it is the payload's own
		}
		delete(m, k)
		if t.IsZero() {
			t = got
		}
	}
	return t
}

// timeLayouts are the forms loggers write: RFC 3339, and Python's
// isoformat() without a zone (read as UTC; docs/import.md).
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"}

// parseTime reads a logger's time: one of timeLayouts, or Unix seconds or
// milliseconds. Zero when it is none of them.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC()
		}
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
		if f > 1e11 { // milliseconds
			f /= 1000
		}
		if f < 1e11 {
			sec := int64(f)
			return time.Unix(sec, int64((f-float64(sec))*1e9)).UTC()
		}
	}
	return time.Time{}
}

// repairAll repairs mojibake in every string of v (in place).
func repairAll(v any, n *int) any {
	switch x := v.(type) {
	case string:
		if s, ok := Repair(x); ok {
			*n++
			return s
		}
	case map[string]any:
		for k, e := range x {
			x[k] = repairAll(e, n)
		}
	case []any:
		for i, e := range x {
			x[i] = repairAll(e, n)
		}
	}
	return v
}

// Repair undoes the usual mojibake: UTF-8 text decoded as Windows-1252
// and encoded again ("â€™" for "’", "Ã©" for "é"). It changes s only
// when every character maps back to one Windows-1252 byte and those bytes
// are valid UTF-8 holding at least one multi-byte character, so correct
// text (ASCII, "café") is left alone.
func Repair(s string) (string, bool) {
	suspect := false
	for _, r := range s {
		if r >= 0x80 {
			if r > 0x2122 {
				return s, false // not a Windows-1252 character
			}
			suspect = true
		}
	}
	if !suspect {
		return s, false
	}
	b, err := charmap.Windows1252.NewEncoder().String(s)
	if err != nil || !utf8.ValidString(b) || b == s {
		return s, false
	}
	return b, true
}

// eventNames maps the hooks-mastery file names to hook events.
var eventNames = map[string]string{
	"session_start": "SessionStart", "user_prompt_submit": "UserPromptSubmit", "pre_tool_use": "PreToolUse",
	"post_tool_use": "PostToolUse", "post_tool_use_failure": "PostToolUseFailure", "notification": "Notification",
	"permission_request": "PermissionRequest", "subagent_start": "SubagentStart", "subagent_stop": "SubagentStop",
	"pre_compact": "PreCompact", "stop": "Stop", "stop_failure": "StopFailure", "session_end": "SessionEnd",
}

// fileOrder is the documented order of events without times within a
// session: the order of a turn.
var fileOrder = []string{"session_start", "user_prompt_submit", "pre_tool_use", "post_tool_use", "post_tool_use_failure",
	"permission_request", "notification", "subagent_start", "subagent_stop", "pre_compact", "stop", "stop_failure", "session_end"}

func baseName(name string) string {
	b := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return strings.ToLower(b)
}

func eventOfFile(name string) string { return eventNames[baseName(name)] }

// rankOf places a file in fileOrder; other files (JSONL logs of every
// event) come between the prompt and the tool events.
func rankOf(name string) int {
	b := baseName(name)
	for i, f := range fileOrder {
		if f == b {
			return i * 2
		}
	}
	return 3
}

func short(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}

func quoteRaw(b []byte) string {
	b = bytes.Join(bytes.Fields(b), []byte(" "))
	if len(b) > maxSkipRaw {
		b = append(b[:maxSkipRaw:maxSkipRaw], "…"...)
	}
	return strconv.Quote(strings.ToValidUTF8(string(b), "?"))
}

// ErrNoLogs: the paths named no log file.
var ErrNoLogs = errors.New("no log files found")
