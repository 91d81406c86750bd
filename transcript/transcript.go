// Package transcript reads what the hooks do not carry from Claude Code's
// session transcripts (JSONL under <claude config dir>/projects/): the
// tokens and model of every assistant message, and the tool calls refused
// before any hook fired (a tool_result with is_error whose tool_use_id no
// hook reported: input validation errors, unknown tools, blocked
// commands).
//
// Read is the pure part: it reads records from a given offset up to the
// first record written after a given time, line by line, with a bounded
// buffer (a line over the cap is skipped and counted, never held). File
// (file.go) is the small adapter that finds, checks and opens the file;
// Apply merges a window into an execution. The mapping of an execution to
// a part of its transcript is documented in docs/executions.md, "Tokens
// and cost".
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
	"time"
)

// DefaultMaxLine is the longest transcript line read (a record with a large
// file or image in it can be megabytes); longer lines are skipped.
const DefaultMaxLine = 8 << 20

// maxIDs bounds the tool_use names remembered in one window.
const maxIDs = 4096

// Usage is the token counts of one message, or a sum.
type Usage struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

func (u *Usage) add(o Usage) {
	u.Input += o.Input
	u.Output += o.Output
	u.CacheRead += o.CacheRead
	u.CacheCreation += o.CacheCreation
}

// Failure is a tool_result with is_error: true.
type Failure struct {
	ToolUseID string
	// Tool is the name of the tool_use it answers, when that was read.
	Tool string
	// Kind classifies it without keeping its text: "input_validation",
	// "unknown_tool", or "error".
	Kind string
	// Time is the tool_result record's timestamp: where the call
	// happened among the hooks' calls (zero when the record had none).
	Time time.Time
}

// Window is what one read found.
type Window struct {
	// Start and End are the offsets read: End is the start of the first
	// record not taken (or of an incomplete last line).
	Start, End int64
	// Lines counts the complete lines taken.
	Lines int
	// Usage sums each assistant message once; ByModel splits it by model.
	Usage    Usage
	ByModel  map[string]Usage
	Messages int
	// LastMessage is the id of the last assistant message taken, so the
	// next window does not count it again when its records straddle
	// the boundary.
	LastMessage string
	// Failures are the is_error tool results, in file order.
	Failures []Failure
	// Skipped counts lines over the cap; Malformed counts lines that are
	// not JSON objects (a torn write, another format) among those decoded
	// (a line that cannot hold a message or an error result is not).
	Skipped, Malformed int
	// Past is true when a record written after the window's end time was
	// seen: the window is complete. Partial is true when the file ended
	// in the middle of a line.
	Past, Partial bool
}

// Options bound a read.
type Options struct {
	// Until ends the window: the first record whose timestamp is after it
	// is not taken (zero: read to the end of the input).
	Until time.Time
	// MaxLine is the longest line read (default DefaultMaxLine).
	MaxLine int
	// After is the LastMessage of the previous window.
	After string
}

// record is the part of a transcript line read.
type record struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Message   *struct {
		ID    string `json:"id"`
		Model string `json:"model"`
		Usage *Usage `json:"usage"`
		// Content is decoded in the same pass; a string content (a
		// prompt) is a type error that leaves it empty.
		Content []block `json:"content"`
	} `json:"message"`
}

type block struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// Read reads r, which starts at offset start of the transcript, until the
// first record after o.Until or the end. An error is returned only when r
// fails; what the file holds never fails a read.
func Read(r io.Reader, start int64, o Options) (Window, error) {
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	w := Window{Start: start, End: start, LastMessage: o.After}
	br := bufio.NewReaderSize(r, 64<<10)
	// The message being read (its records are consecutive): its usage is
	// the largest seen per kind (streamed records can carry partial
	// output counts). Messages already counted are remembered, bounded.
	type msg struct {
		id    string
		model string
		u     Usage
	}
	var cur *msg
	counted := map[string]bool{}
	flush := func() {
		if cur == nil {
			return
		}
		m := cur
		cur = nil
		if m.u.Input < 0 || m.u.Output < 0 || m.u.CacheRead < 0 || m.u.CacheCreation < 0 {
			return
		}
		if len(counted) >= maxIDs {
			clear(counted)
		}
		counted[m.id] = true
		w.Messages++
		w.Usage.add(m.u)
		if w.ByModel == nil {
			w.ByModel = map[string]Usage{}
		}
		bm := w.ByModel[m.model]
		bm.add(m.u)
		w.ByModel[m.model] = bm
	}
	names := map[string]string{}
	var buf []byte
	for {
		line, n, over, err := readLine(br, buf[:0], o.MaxLine)
		buf = line[:0]
		if n == 0 && err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return w, err
		}
		if err != nil && !over { // no newline: an incomplete last line
			if errors.Is(err, io.EOF) {
				w.Partial = true
				break
			}
			return w, err
		}
		if over {
			if err != nil { // still being written, or cut: not taken
				if errors.Is(err, io.EOF) {
					w.Partial = true
					break
				}
				return w, err
			}
			w.Skipped++
			w.End += n
			w.Lines++
			continue
		}
		var rec record
		trim := bytes.TrimSpace(line)
		if len(trim) == 0 {
			w.End += n
			continue
		}
		if trim[0] != '{' {
			w.Malformed++
			w.End += n
			w.Lines++
			continue
		}
		if !needed(trim) {
			// Most of a transcript (prompts, attachments, successful
			// tool results with their output) holds nothing to count:
			// only its time is read, without decoding it.
			if t, ok := quickTime(trim); ok && !o.Until.IsZero() && t.After(o.Until) {
				w.Past = true
				break
			}
			w.End += n
			w.Lines++
			continue
		}
		var ute *json.UnmarshalTypeError
		if err := json.Unmarshal(trim, &rec); err != nil && !errors.As(err, &ute) {
			w.Malformed++
			w.End += n
			w.Lines++
			continue
		}
		if !o.Until.IsZero() && rec.Timestamp.After(o.Until) {
			w.Past = true
			break
		}
		w.End += n
		w.Lines++
		if rec.Message == nil {
			continue
		}
		blocks := rec.Message.Content
		switch rec.Type {
		case "assistant":
			for _, b := range blocks {
				if b.Type == "tool_use" && b.ID != "" {
					if len(names) >= maxIDs {
						clear(names)
					}
					names[b.ID] = b.Name
				}
			}
			id := rec.Message.ID
			if id == "" || rec.Message.Usage == nil || id == o.After {
				continue
			}
			u := *rec.Message.Usage
			if cur != nil && cur.id == id {
				cur.u = Usage{max(cur.u.Input, u.Input), max(cur.u.Output, u.Output), max(cur.u.CacheRead, u.CacheRead), max(cur.u.CacheCreation, u.CacheCreation)}
				if cur.model == "" {
					cur.model = rec.Message.Model
				}
				continue
			}
			if counted[id] {
				continue
			}
			flush()
			cur = &msg{id: id, model: rec.Message.Model, u: u}
			w.LastMessage = id
		case "user":
			for _, b := range blocks {
				if b.Type == "tool_result" && b.IsError && b.ToolUseID != "" {
					w.Failures = append(w.Failures, Failure{ToolUseID: b.ToolUseID, Tool: names[b.ToolUseID], Kind: kind(b.Content), Time: rec.Timestamp})
				}
			}
		}
	}
	flush()
	return w, nil
}

// Models returns the window's models, sorted, without the empty name.
// Merge adds another file's window to w: its usage, messages, failures
// and skipped lines (the offsets stay w's).
func (w *Window) Merge(o Window) {
	w.Usage.add(o.Usage)
	for m, u := range o.ByModel {
		if w.ByModel == nil {
			w.ByModel = map[string]Usage{}
		}
		v := w.ByModel[m]
		v.add(u)
		w.ByModel[m] = v
	}
	w.Messages += o.Messages
	w.Failures = append(w.Failures, o.Failures...)
	w.Skipped += o.Skipped
	w.Malformed += o.Malformed
}

func (w *Window) Models() []string {
	var out []string
	for m := range w.ByModel {
		if m != "" {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// readLine reads one line into buf, keeping at most max bytes of it. n is
// the number of bytes consumed including the newline; over is set when the
// line was longer than max (its bytes past max were discarded). err is
// io.EOF (or the reader's error) when the input ended before a newline.
func readLine(br *bufio.Reader, buf []byte, max int) (line []byte, n int64, over bool, err error) {
	for {
		frag, e := br.ReadSlice('\n')
		n += int64(len(frag))
		if !over {
			if len(buf)+len(frag) > max {
				over = true
				buf = buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		if e == nil {
			return buf, n, over, nil
		}
		if errors.Is(e, bufio.ErrBufferFull) {
			continue
		}
		return buf, n, over, e
	}
}

// kind classifies an error result by Claude Code's own prefixes, keeping
// none of its text.
func kind(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) != nil {
		var bs []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &bs) == nil && len(bs) > 0 {
			s = bs[0].Text
		}
	}
	switch {
	case strings.Contains(s, "InputValidationError"):
		return "input_validation"
	case strings.Contains(s, "No such tool available"):
		return "unknown_tool"
	}
	return "error"
}

var (
	keyAssistant = []byte(`"assistant"`)
	keyError     = []byte(`"is_error":true`)
	keyErrorSp   = []byte(`"is_error": true`)
	keyTime      = []byte(`"timestamp":"`)
)

// needed says whether a record may hold something Read counts: an
// assistant message, or an error result. Inside a JSON string quotes are
// escaped, so these byte sequences only match keys and values.
func needed(rec []byte) bool {
	return bytes.Contains(rec, keyAssistant) || bytes.Contains(rec, keyError) || bytes.Contains(rec, keyErrorSp)
}

// quickTime finds a record's timestamp without decoding it: the last
// "timestamp" key (Claude Code writes the record's own after its message).
func quickTime(rec []byte) (time.Time, bool) {
	i := bytes.LastIndex(rec, keyTime)
	if i < 0 {
		return time.Time{}, false
	}
	v := rec[i+len(keyTime):]
	j := bytes.IndexByte(v, '"')
	if j < 0 || j > 64 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(v[:j]))
	return t, err == nil
}
