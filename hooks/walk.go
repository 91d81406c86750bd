package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// The walk: encoding/json's Decoder reads the payload token by token
// (Decoder.Token keeps the members in their order, duplicates included),
// and the walker writes every token to the line as it was received, less
// the white space between tokens. A value whose JSON text is longer than
// the bound is cut to its head and tail and recorded in sepa.cut (cut.go).
// The walker also keeps the few top-level values Enrich reads (facts).

// maxDepth bounds nesting; deeper payloads are quarantined.
const maxDepth = 1000

// objectFactor: an object is cut only past objectFactor*MaxField, since
// its member names are the schema readers look for; its members are
// bounded on their own.
const objectFactor = 8

var errTooDeep = errors.New("nesting deeper than " + strconv.Itoa(maxDepth))

// facts are the payload's top-level values Enrich reads to attribute the
// event (skill.go, instructions.go): strings ("" when absent or not a
// string, the last one winning when a name is repeated), and the JSON
// text of tool_input.
type facts struct {
	event, cwd, tool, prompt, command, agentType, filePath string
	toolInput                                              []byte
}

// walker rewrites one JSON document from in to out.
type walker struct {
	in  []byte
	dec *json.Decoder
	out []byte
	max int
	// path is where the value being written is: a member name, or an
	// array index when idx >= 0.
	path []step
	cuts []cutRec
	// members counts the top-level members written.
	members int
	facts   facts
	// toolInput is where tool_input's value is in out.
	toolInput span
}

type step struct {
	key string
	idx int
}

type span struct{ start, end int }

// walk rewrites payload, repairing it first when it may hold what
// encoding/json would change without a word, or when it is not valid JSON
// as received (repair.go). It returns the walker and "", or the reason
// the payload is quarantined.
func walk(payload []byte, max int) (w *walker, repairs int, reason string) {
	p := payload
	if mayNeedRepair(p) {
		p, repairs = repair(p)
	}
	w, reason = walkOnce(p, max)
	if reason != "" && repairs == 0 {
		if q, r := repair(p); r != 0 {
			repairs = r
			w, reason = walkOnce(q, max)
		}
	}
	return w, repairs, reason
}

// walkOnce rewrites p as it is.
func walkOnce(p []byte, max int) (*walker, string) {
	w := &walker{in: p, max: max, out: make([]byte, 0, min(len(p), 4*max)+256)}
	if reason := w.document(); reason != "" {
		return w, reason
	}
	if w.toolInput.end > 0 {
		w.facts.toolInput = w.out[w.toolInput.start:w.toolInput.end]
	}
	return w, ""
}

// document rewrites in, which must be one JSON object, and returns "" or
// the reason to quarantine it.
func (w *walker) document() string {
	body := bytes.TrimLeft(w.in, " \t\r\n")
	switch {
	case len(body) == 0:
		return "empty payload"
	case body[0] != '{':
		return "not a JSON object"
	}
	w.dec = json.NewDecoder(bytes.NewReader(w.in))
	w.dec.UseNumber() // a number is copied as written, never parsed
	if _, err := w.value(0); err != nil {
		return w.explain(err)
	}
	if rest := bytes.TrimLeft(w.in[w.offset():], " \t\r\n"); len(rest) > 0 {
		return "data after the JSON object at byte " + strconv.Itoa(len(w.in)-len(rest))
	}
	return ""
}

// explain turns a walk error into a quarantine reason.
func (w *walker) explain(err error) string {
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, errTooDeep):
		return err.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "invalid JSON: unexpected end of payload"
	case errors.As(err, &syntax):
		return "invalid JSON at byte " + strconv.FormatInt(w.offset(), 10) + ": " + syntax.Error()
	}
	return "invalid JSON: " + err.Error()
}

// offset is the decoder's position in in: just after the last token read.
func (w *walker) offset() int64 { return w.dec.InputOffset() }

// raw is the JSON text of the token read since offset from (the
// separator and white space before it left out).
func (w *walker) raw(from int64) []byte {
	return bytes.TrimLeft(w.in[from:w.offset()], " \t\r\n,:")
}

// value writes the next value; for a string it also returns the string.
func (w *walker) value(depth int) (string, error) {
	if depth > maxDepth {
		return "", errTooDeep
	}
	from := w.offset()
	tok, err := w.dec.Token()
	if err != nil {
		return "", err
	}
	start := len(w.out)
	switch tok := tok.(type) {
	case json.Delim: // '{' or '[': Token refuses a closing one here
		inStart := w.offset() - 1
		var elems []elem
		if tok == '{' {
			elems, err = w.object(depth)
		} else {
			elems, err = w.array(depth)
		}
		if err != nil {
			return "", err
		}
		limit := w.max
		if tok == '{' {
			limit = objectFactor * w.max
		}
		if depth > 0 && len(w.out)-start > limit {
			w.cutContainer(start, w.in[inStart:w.offset()], elems)
		}
		return "", nil
	case string:
		raw := w.raw(from)
		if len(raw) > w.max {
			// Cut from the decoded string: a long value is never
			// copied into the line first.
			w.cutString(start, tok)
			return tok, nil
		}
		w.out = append(w.out, raw...)
		return tok, nil
	default: // json.Number, bool or nil
		w.out = append(w.out, w.raw(from)...)
		if len(w.out)-start > w.max {
			w.cutNumber(start)
		}
		return "", nil
	}
}

// elem is where one member or element of a container is in out, and the
// member's name.
type elem struct {
	start, end int
	key        string
}

// object writes the members of the object whose '{' was just read.
func (w *walker) object(depth int) ([]elem, error) {
	w.out = append(w.out, '{')
	var elems []elem
	for w.dec.More() {
		from := w.offset()
		tok, err := w.dec.Token() // a member name: Token refuses anything else here
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		if len(elems) > 0 {
			w.out = append(w.out, ',')
		}
		start := len(w.out)
		if name := w.raw(from); depth == 0 && strings.EqualFold(key, "sepa") {
			// A payload that already has a sepa object (a line fed back
			// in), under any name encoding/json would match to sepa: kept
			// under another name, ours is authoritative.
			w.out = append(w.out, `"sepa_input"`...)
		} else {
			w.out = append(w.out, name...)
		}
		w.out = append(w.out, ':')
		w.path = append(w.path, step{key: key, idx: -1})
		vstart := len(w.out)
		s, err := w.value(depth + 1)
		if err != nil {
			return nil, err
		}
		w.path = w.path[:len(w.path)-1]
		if depth == 0 {
			w.members++
			w.note(key, s, span{vstart, len(w.out)})
		}
		elems = append(elems, elem{start, len(w.out), key})
	}
	if _, err := w.dec.Token(); err != nil { // '}'
		return nil, err
	}
	w.out = append(w.out, '}')
	return elems, nil
}

// array writes the elements of the array whose '[' was just read.
func (w *walker) array(depth int) ([]elem, error) {
	w.out = append(w.out, '[')
	var elems []elem
	for i := 0; w.dec.More(); i++ {
		if i > 0 {
			w.out = append(w.out, ',')
		}
		start := len(w.out)
		w.path = append(w.path, step{idx: i})
		if _, err := w.value(depth + 1); err != nil {
			return nil, err
		}
		w.path = w.path[:len(w.path)-1]
		elems = append(elems, elem{start: start, end: len(w.out)})
	}
	if _, err := w.dec.Token(); err != nil { // ']'
		return nil, err
	}
	w.out = append(w.out, ']')
	return elems, nil
}

// note keeps the top-level values Enrich reads: s is the value when it
// is a string, at out[v].
func (w *walker) note(key, s string, v span) {
	f := &w.facts
	switch key {
	case "hook_event_name":
		f.event = s
	case "cwd":
		f.cwd = s
	case "tool_name":
		f.tool = s
	case "prompt":
		f.prompt = s
	case "command_name":
		f.command = s
	case "agent_type":
		f.agentType = s
	case "file_path":
		f.filePath = s
	case "tool_input":
		w.toolInput = v
	}
}

// pointer returns the RFC 6901 JSON Pointer of the value being written.
func (w *walker) pointer() string {
	var b strings.Builder
	for _, s := range w.path {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
		} else {
			b.WriteString(pointerSeg(s.key))
		}
	}
	return b.String()
}

// pointerSeg turns a member name into a JSON Pointer segment: "~" as "~0"
// and "/" as "~1".
func pointerSeg(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// sum256 is the lowercase hex sha256 of b.
func sum256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
