package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultMaxField is the default bound on the JSON text of one field.
const DefaultMaxField = 64 << 10

// DefaultMaxPayload is the default bound on a payload read by HandleReader:
// larger payloads are quarantined, never parsed.
const DefaultMaxPayload = 64 << 20

// DefaultLockTimeout is how long Handle waits for the spool lock before
// writing to the fallback file.
const DefaultLockTimeout = time.Second

// maxDepth bounds nesting; deeper payloads are quarantined.
const maxDepth = 1000

// CutMarker is put between the head and the tail of a cut string.
const CutMarker = "…[cut by sepad, see sepa.cut]…"

// Options tune Enrich and Handle. The zero value means the defaults.
type Options struct {
	// MaxField bounds the JSON text of every value below the top level, in
	// bytes: longer strings, arrays and objects keep a head and a tail
	// (docs/events.md). 0 means DefaultMaxField; values under 256 are
	// raised to 256.
	MaxField int
	// UserHome is the user's home directory: it ends the search for
	// project skills in the parents of a cwd outside any repository, and
	// holds ~/.claude; "" means os.UserHomeDir().
	UserHome string
	// ClaudeDir is the user's Claude Code configuration directory, where
	// the user-level skills, commands and agents are; "" means
	// $CLAUDE_CONFIG_DIR when set, else UserHome/.claude
	// (ClaudeConfigDir).
	ClaudeDir string
	// GOOS selects the path rules used to normalise cwd; "" means
	// runtime.GOOS. Tests set it to check the Windows rules anywhere.
	GOOS string
	// NoFiles keeps Enrich off the file system: no repo root lookup
	// (sepa.project is the normalised cwd) and no skill file resolution
	// (sepa.skill is still recorded). The fuzz target uses it.
	NoFiles bool

	// Home is the state directory Handle appends to; "" means Home().
	Home string
	// LockTimeout bounds Handle's wait for the spool lock; 0 means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// MaxPayload bounds HandleReader's read; 0 means DefaultMaxPayload.
	MaxPayload int64
	// Now is Handle's clock; nil means time.Now.
	Now func() time.Time
	// Plugin says the hook runs as the sepad plugin's copy
	// (CLAUDE_PLUGIN_ROOT set): its line gets sepa.via "plugin", and
	// Handle drops it when the settings copy already wrote the event
	// (dedup.go).
	Plugin bool
}

func (o Options) maxField() int {
	switch {
	case o.MaxField <= 0:
		return DefaultMaxField
	case o.MaxField < 256:
		return 256
	}
	return o.MaxField
}

// Enrich turns one hook payload into one spool line (without the newline):
// the payload's members, in their order, with insignificant whitespace
// removed, values over opts.MaxField cut to head and tail, invalid UTF-8,
// raw control characters and lone surrogates repaired, and a "sepa" object
// appended (docs/events.md). Whatever the input, the result is one line of
// valid JSON that event.ParseLine accepts, or a Quarantined line holding
// the payload as a string. It reads no file except skill prompt files and
// instruction files (CLAUDE.md, rules, imports: instructions.go).
func Enrich(payload []byte, now time.Time, opts Options) []byte {
	line, _ := enrich(payload, now, opts)
	return line
}

// enrich is Enrich, also telling whether the line is a quarantine.
func enrich(payload []byte, now time.Time, opts Options) (line []byte, quarantined bool) {
	line, reason := rewrite(payload, now, opts)
	if reason == "" {
		reason = checkLine(line)
	}
	if reason != "" {
		return quarantine(payload, reason, now, opts, int64(len(payload)), nil), true
	}
	return line, false
}

// rewrite is the walk: the payload rewritten with its sepa object, or the
// reason it is not a JSON object. The line is not yet checked against the
// collector's parser (checkLine).
func rewrite(payload []byte, now time.Time, opts Options) (line []byte, reason string) {
	max := opts.maxField()
	w := walker{in: payload, max: max, out: make([]byte, 0, min(len(payload), 4*max)+256)}
	if reason := w.document(); reason != "" {
		return nil, reason
	}
	var s sepaObj
	s.ts = now
	if opts.Plugin {
		s.via = viaPlugin
	}
	w.attribute(&s, opts)
	s.cuts = w.cuts
	s.repairs = w.repairs
	line = w.out[:len(w.out)-1] // drop the closing brace
	if w.members > 0 {
		line = append(line, ',')
	}
	line = append(line, `"sepa":`...)
	line = s.appendTo(line)
	return append(line, '}'), ""
}

// repair flags, recorded in sepa.repaired.
const (
	repairUTF8 = 1 << iota
	repairControl
	repairSurrogate
	repairEscape
	repairNUL
	repairBOM
)

var repairNames = []string{"utf8", "control", "surrogate", "escape", "nul", "bom"}

// sepaObj is the enrichment object as written. It is encoded by hand, in a
// fixed key order, to keep the hook free of reflection.
type sepaObj struct {
	ts                                      time.Time
	skill, skillPath, skillVersion, project string
	// via is "plugin" for the plugin's copy of the hook (dedup.go).
	via string
	// plugin and pluginVersion name the plugin whose prompt skillPath is
	// (plugin.go).
	plugin, pluginVersion string
	// pluginPrompts is the session's plugin prompt files (SessionStart).
	pluginPrompts   []promptHash
	cuts            []cutRec
	repairs         int
	quarantine, raw string
	// instructions is the session's instruction files (SessionStart) or
	// the one file an InstructionsLoaded names (instructions.go).
	instructions *instructionSet
}

type cutRec struct {
	field string
	n     int64
	sum   string
}

func (s *sepaObj) appendTo(b []byte) []byte {
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, schemaVersion, 10)
	b = append(b, `,"ts":"`...)
	b = s.ts.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	str := func(k, v string) {
		if v != "" {
			b = append(b, ',', '"')
			b = append(b, k...)
			b = append(b, `":`...)
			b = appendString(b, []byte(v))
		}
	}
	str("skill", s.skill)
	str("skill_path", s.skillPath)
	str("skill_version", s.skillVersion)
	str("plugin", s.plugin)
	str("plugin_version", s.pluginVersion)
	str("project", s.project)
	b = s.instructions.appendTo(b)
	b = appendPluginPrompts(b, s.pluginPrompts)
	str("via", s.via)
	str("quarantine", s.quarantine)
	str("raw", s.raw)
	if len(s.cuts) > 0 {
		b = append(b, `,"cut":[`...)
		for i, c := range s.cuts {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"field":`...)
			b = appendString(b, []byte(c.field))
			b = append(b, `,"len":`...)
			b = strconv.AppendInt(b, c.n, 10)
			b = append(b, `,"sha256":"`...)
			b = append(b, c.sum...)
			b = append(b, `"}`...)
		}
		b = append(b, ']')
	}
	if s.repairs != 0 {
		b = append(b, `,"repaired":[`...)
		first := true
		for i, n := range repairNames {
			if s.repairs&(1<<i) != 0 {
				if !first {
					b = append(b, ',')
				}
				first = false
				b = append(b, '"')
				b = append(b, n...)
				b = append(b, '"')
			}
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// quarantine builds the line for a payload that cannot be kept as JSON:
// the payload becomes sepa.raw, a valid UTF-8 string cut to head and tail
// beyond MaxField; the cut record then holds total (the payload's full
// length) and sum (its sha256, computed here when nil).
func quarantine(payload []byte, reason string, now time.Time, opts Options, total int64, sum []byte) []byte {
	max := opts.maxField()
	s := sepaObj{ts: now, quarantine: reason}
	raw := appendString(make([]byte, 0, min(len(payload), 2*max)+16), payload)
	if len(raw) > max || total > int64(len(payload)) {
		if sum == nil {
			h := sha256.Sum256(payload)
			sum = h[:]
		}
		raw = cutEncodedString(raw, max)
		s.cuts = []cutRec{{field: "/sepa/raw", n: total, sum: hex.EncodeToString(sum)}}
	}
	var v string
	if err := jsonUnquote(raw, &v); err == nil {
		s.raw = v
	}
	b := make([]byte, 0, len(raw)+256)
	b = append(b, `{"hook_event_name":"`+evQuarantined+`","sepa":`...)
	b = s.appendTo(b)
	return append(b, '}')
}

// Quarantine returns the Quarantined line for a payload kept only in part:
// head is what was read, total the payload's full length and sum its
// sha256. HandleReader uses it for payloads over MaxPayload.
func Quarantine(head []byte, reason string, now time.Time, opts Options, total int64, sum []byte) []byte {
	return quarantine(head, reason, now, opts, total, sum)
}

// walker rewrites a JSON document from in to out in one pass.
type walker struct {
	in  []byte
	i   int
	out []byte
	max int
	// path holds the segments of the value being written.
	path    []seg
	cuts    []cutRec
	repairs int
	err     string
	// top-level members: count, and the value spans of the keys sepad reads.
	members int
	top     [nTop]span
}

type seg struct {
	keyStart, keyEnd int // escaped key content in out, when idx < 0
	idx              int
}

type span struct{ start, end int }

// Top-level keys whose values Enrich reads.
const (
	topEvent = iota
	topCwd
	topTool
	topInput
	topPrompt
	topCommand
	topAgentType
	topFilePath
	nTop
)

var topKeys = [nTop]string{"hook_event_name", "cwd", "tool_name", "tool_input", "prompt", "command_name", "agent_type", "file_path"}

func (w *walker) fail(msg string) {
	if w.err == "" {
		w.err = "invalid JSON at byte " + strconv.Itoa(w.i) + ": " + msg
	}
}

// document rewrites the payload, which must be one JSON object, and
// returns "" or the reason to quarantine it.
func (w *walker) document() string {
	if bytes.HasPrefix(w.in, []byte("\xef\xbb\xbf")) {
		w.i = 3
		w.repairs |= repairBOM
	}
	w.ws()
	if w.i >= len(w.in) {
		return "empty payload"
	}
	if w.in[w.i] != '{' {
		return "not a JSON object"
	}
	w.object(0)
	if w.err != "" {
		return w.err
	}
	w.ws()
	if w.i < len(w.in) {
		return "data after the JSON object at byte " + strconv.Itoa(w.i)
	}
	return ""
}

// ws skips insignificant whitespace; NUL bytes between tokens are dropped
// too (and recorded as a repair).
func (w *walker) ws() {
	for w.i < len(w.in) {
		switch w.in[w.i] {
		case ' ', '\t', '\n', '\r':
		case 0:
			w.repairs |= repairNUL
		default:
			return
		}
		w.i++
	}
}

func (w *walker) value(depth int) {
	if depth > maxDepth {
		w.fail("nesting deeper than " + strconv.Itoa(maxDepth))
		return
	}
	w.ws()
	if w.i >= len(w.in) {
		w.fail("unexpected end of payload")
		return
	}
	start, inStart := len(w.out), w.i
	switch c := w.in[w.i]; {
	case c == '{':
		w.object(depth)
	case c == '[':
		w.array(depth)
	case c == '"':
		w.str()
	case c == 't':
		w.literal("true")
	case c == 'f':
		w.literal("false")
	case c == 'n':
		w.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		w.number()
	default:
		w.fail("unexpected " + strconv.QuoteRune(rune(c)))
	}
	if w.err == "" && len(w.out)-start > w.max && (w.out[start] != '{' || len(w.out)-start > objectFactor*w.max) {
		w.cut(start, inStart)
	}
}

// objectFactor: an object is cut only past objectFactor*MaxField, since
// its member names are the schema readers look for; its members are
// bounded on their own.
const objectFactor = 8

func (w *walker) object(depth int) {
	w.out = append(w.out, '{')
	w.i++
	w.ws()
	if w.i < len(w.in) && w.in[w.i] == '}' {
		w.i++
		w.out = append(w.out, '}')
		return
	}
	for n := 0; ; n++ {
		w.ws()
		if w.i >= len(w.in) || w.in[w.i] != '"' {
			w.fail("expected a member name")
			return
		}
		if n > 0 {
			w.out = append(w.out, ',')
		}
		ks := len(w.out)
		w.str()
		if w.err != "" {
			return
		}
		ke := len(w.out)
		if depth == 0 && isSepaKey(w.out[ks:ke]) {
			// A payload that already has a sepa object (a line fed
			// back in): keep it under another name, ours is authoritative.
			w.out = append(w.out[:ks], `"sepa_input"`...)
			ke = len(w.out)
		}
		w.ws()
		if w.i >= len(w.in) || w.in[w.i] != ':' {
			w.fail("expected ':'")
			return
		}
		w.i++
		w.out = append(w.out, ':')
		w.path = append(w.path, seg{keyStart: ks + 1, keyEnd: ke - 1, idx: -1})
		vs := len(w.out)
		w.value(depth + 1)
		w.path = w.path[:len(w.path)-1]
		if w.err != "" {
			return
		}
		if depth == 0 {
			w.members++
			key := w.out[ks+1 : ke-1]
			for t, name := range topKeys {
				if string(key) == name {
					w.top[t] = span{vs, len(w.out)}
				}
			}
		}
		w.ws()
		if w.i >= len(w.in) {
			w.fail("unexpected end of payload in an object")
			return
		}
		switch w.in[w.i] {
		case ',':
			w.i++
		case '}':
			w.i++
			w.out = append(w.out, '}')
			return
		default:
			w.fail("expected ',' or '}'")
			return
		}
	}
}

func (w *walker) array(depth int) {
	w.out = append(w.out, '[')
	w.i++
	w.ws()
	if w.i < len(w.in) && w.in[w.i] == ']' {
		w.i++
		w.out = append(w.out, ']')
		return
	}
	for n := 0; ; n++ {
		if n > 0 {
			w.out = append(w.out, ',')
		}
		w.path = append(w.path, seg{idx: n})
		w.value(depth + 1)
		w.path = w.path[:len(w.path)-1]
		if w.err != "" {
			return
		}
		w.ws()
		if w.i >= len(w.in) {
			w.fail("unexpected end of payload in an array")
			return
		}
		switch w.in[w.i] {
		case ',':
			w.i++
		case ']':
			w.i++
			w.out = append(w.out, ']')
			return
		default:
			w.fail("expected ',' or ']'")
			return
		}
	}
}

func (w *walker) literal(lit string) {
	if !bytes.HasPrefix(w.in[w.i:], []byte(lit)) {
		w.fail("invalid literal")
		return
	}
	w.i += len(lit)
	w.out = append(w.out, lit...)
}

func (w *walker) number() {
	in, i := w.in, w.i
	digits := func() int {
		s := i
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
		return i - s
	}
	if in[i] == '-' {
		i++
	}
	if i < len(in) && in[i] == '0' {
		i++
	} else if digits() == 0 {
		w.fail("invalid number")
		return
	}
	if i < len(in) && in[i] == '.' {
		i++
		if digits() == 0 {
			w.fail("invalid number")
			return
		}
	}
	if i < len(in) && (in[i] == 'e' || in[i] == 'E') {
		i++
		if i < len(in) && (in[i] == '+' || in[i] == '-') {
			i++
		}
		if digits() == 0 {
			w.fail("invalid number")
			return
		}
	}
	w.out = append(w.out, in[w.i:i]...)
	w.i = i
}

// plain marks the bytes copied as they are inside a string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

const hexDigits = "0123456789abcdef"

// str copies a string token, repairing what JSON or UTF-8 forbid: invalid
// UTF-8 becomes U+FFFD, raw control characters are escaped, a lone
// surrogate escape becomes \ufffd, and an unknown escape keeps its
// backslash as a character.
func (w *walker) str() {
	in := w.in
	i := w.i + 1
	w.out = append(w.out, '"')
	for {
		s := i
		for i < len(in) && plain[in[i]] {
			i++
		}
		w.out = append(w.out, in[s:i]...)
		if i >= len(in) {
			w.i = i
			w.fail("unterminated string")
			return
		}
		c := in[i]
		switch {
		case c == '"':
			w.out = append(w.out, '"')
			w.i = i + 1
			return
		case c == '\\':
			i = w.escape(i)
		case c < 0x20:
			if c == 0 {
				w.repairs |= repairNUL
			} else {
				w.repairs |= repairControl
			}
			w.out = appendControl(w.out, c)
			i++
		default:
			r, n := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && n <= 1 {
				w.repairs |= repairUTF8
				w.out = append(w.out, "\uFFFD"...)
				i++
			} else {
				w.out = append(w.out, in[i:i+n]...)
				i += n
			}
		}
	}
}

// escape copies the escape sequence at in[i] (a backslash) and returns the
// index after it.
func (w *walker) escape(i int) int {
	in := w.in
	if i+1 >= len(in) {
		w.repairs |= repairEscape
		w.out = append(w.out, `\\`...)
		return i + 1
	}
	switch in[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		w.out = append(w.out, in[i:i+2]...)
		return i + 2
	case 'u':
		u, ok := hex4(in, i+2)
		if !ok {
			break
		}
		switch {
		case u >= 0xD800 && u < 0xDC00:
			if lo, ok := hex4(in, i+8); ok && in[i+6] == '\\' && in[i+7] == 'u' && lo >= 0xDC00 && lo < 0xE000 {
				w.out = append(w.out, in[i:i+12]...)
				return i + 12
			}
			w.repairs |= repairSurrogate
			w.out = append(w.out, `\ufffd`...)
			return i + 6
		case u >= 0xDC00 && u < 0xE000:
			w.repairs |= repairSurrogate
			w.out = append(w.out, `\ufffd`...)
			return i + 6
		}
		w.out = append(w.out, in[i:i+6]...)
		return i + 6
	}
	// Not a JSON escape: keep the backslash as a character.
	w.repairs |= repairEscape
	w.out = append(w.out, `\\`...)
	return i + 1
}

func hex4(in []byte, i int) (rune, bool) {
	if i+4 > len(in) {
		return 0, false
	}
	var r rune
	for _, c := range in[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func appendControl(b []byte, c byte) []byte {
	switch c {
	case '\n':
		return append(b, `\n`...)
	case '\r':
		return append(b, `\r`...)
	case '\t':
		return append(b, `\t`...)
	case '\b':
		return append(b, `\b`...)
	case '\f':
		return append(b, `\f`...)
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
}

// appendString appends s as a JSON string, valid whatever s holds:
// invalid UTF-8 becomes U+FFFD and control characters are escaped.
func appendString(b, s []byte) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && plain[s[j]] {
			j++
		}
		b = append(b, s[i:j]...)
		if j >= len(s) {
			break
		}
		c := s[j]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
			i = j + 1
		case c < 0x20:
			b = appendControl(b, c)
			i = j + 1
		default:
			r, n := utf8.DecodeRune(s[j:])
			if r == utf8.RuneError && n <= 1 {
				b = append(b, "\uFFFD"...)
				i = j + 1
			} else {
				b = append(b, s[j:j+n]...)
				i = j + n
			}
		}
	}
	return append(b, '"')
}

// cut shortens the value just written at out[start:] (read from
// in[inStart:w.i]) to at most about max bytes and records it.
func (w *walker) cut(start, inStart int) {
	if len(w.path) == 0 {
		return
	}
	field := w.pointer()
	v := w.out[start:]
	var rec cutRec
	rec.field = field
	switch v[0] {
	case '"':
		h := sha256.New()
		rec.n = unescapeTo(h, v[1:len(v)-1])
		rec.sum = hex.EncodeToString(h.Sum(nil))
		w.out = append(w.out[:start], cutEncodedString(v, w.max)...)
	case '{', '[':
		sum := sha256.Sum256(w.in[inStart:w.i])
		rec.n, rec.sum = int64(w.i-inStart), hex.EncodeToString(sum[:])
		elems := containerElems(v)
		head, tail := keepEnds(elems, w.max)
		var dropped map[string]bool // pointer segments of dropped members
		if v[0] == '{' {
			dropped = map[string]bool{}
			for _, e := range elems[head:tail] {
				dropped[pointerSeg(v[e.start:skipString(v, e.start)])] = true
			}
		}
		w.out = w.out[:start+compactElems(v, elems, head, tail)]
		w.fixCuts(field, dropped, head, tail)
	default: // a number longer than max: kept as a cut string
		sum := sha256.Sum256(v)
		rec.n, rec.sum = int64(len(v)), hex.EncodeToString(sum[:])
		q := appendString(nil, v)
		w.out = append(w.out[:start], cutEncodedString(q, w.max)...)
	}
	w.cuts = append(w.cuts, rec)
}

// cutEncodedString returns the valid JSON string q (with its quotes) cut
// to its first and last bytes around CutMarker, at most max bytes in all,
// never splitting an escape sequence, a surrogate pair or a UTF-8
// sequence. It may reuse q's memory.
func cutEncodedString(q []byte, max int) []byte {
	content := q[1 : len(q)-1]
	budget := max - 2 - len(CutMarker)
	if budget < 0 {
		budget = 0
	}
	if len(content) <= budget {
		// Only the part that was never read is missing (a payload over
		// the read limit): keep everything, then the marker.
		out := make([]byte, 0, len(content)+len(CutMarker)+2)
		out = append(append(append(out, '"'), content...), CutMarker...)
		return append(out, '"')
	}
	h, t := budget/2, budget-budget/2
	headEnd, tailStart := 0, len(content)
	for i := 0; i < len(content); {
		if i <= h {
			headEnd = i
		}
		if i >= len(content)-t {
			tailStart = i
			break
		}
		i += unitLen(content, i)
	}
	out := make([]byte, 0, headEnd+len(CutMarker)+len(content)-tailStart+2)
	out = append(out, '"')
	out = append(out, content[:headEnd]...)
	out = append(out, CutMarker...)
	out = append(out, content[tailStart:]...)
	return append(out, '"')
}

// unitLen is the length of the unit starting at s[i] in valid JSON string
// content: an escape (a surrogate pair counts as one) or a UTF-8 sequence.
func unitLen(s []byte, i int) int {
	if s[i] == '\\' {
		if i+1 < len(s) && s[i+1] == 'u' {
			if u, ok := hex4(s, i+2); ok && u >= 0xD800 && u < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' {
				return 12
			}
			return 6
		}
		return 2
	}
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, n := utf8.DecodeRune(s[i:])
	return n
}

// containerElems returns the spans of the elements (members, for an
// object) of the compact, valid array or object v.
func containerElems(v []byte) []span {
	var elems []span
	for i := 1; i < len(v)-1; {
		e := skipValue(v, i, v[0] == '{')
		elems = append(elems, span{i, e})
		i = e + 1 // skip the comma
	}
	return elems
}

// keepEnds chooses the elements a cut container keeps: the first ones
// within max/2 bytes and the last ones within max/2 bytes, and at least
// the first and the last element. Elements [head, tail) are dropped.
func keepEnds(elems []span, max int) (head, tail int) {
	half := max / 2
	size := 0
	for head < len(elems) && (head == 0 || size+elems[head].end-elems[head].start+1 <= half) {
		size += elems[head].end - elems[head].start + 1
		head++
	}
	tail, size = len(elems), 0
	for tail > head && (tail == len(elems) || size+elems[tail-1].end-elems[tail-1].start+1 <= half) {
		size += elems[tail-1].end - elems[tail-1].start + 1
		tail--
	}
	return head, tail
}

// compactElems removes elements [head, tail) from v in place and returns
// the new length.
func compactElems(v []byte, elems []span, head, tail int) int {
	n := elems[head-1].end
	if tail < len(elems) {
		v[n] = ','
		n++
		n += copy(v[n:], v[elems[tail].start:elems[len(elems)-1].end])
	}
	v[n] = v[len(v)-1]
	return n + 1
}

// fixCuts updates the records of values inside the container just cut at
// field: records inside dropped elements go (the container's own record
// covers them), and in an array (dropped == nil) the indexes of the
// elements after the dropped range [head, tail) move down.
func (w *walker) fixCuts(field string, dropped map[string]bool, head, tail int) {
	keep := w.cuts[:0]
	for _, c := range w.cuts {
		rest, inside := strings.CutPrefix(c.field, field+"/")
		if !inside {
			keep = append(keep, c)
			continue
		}
		seg, after, deeper := strings.Cut(rest, "/")
		if dropped != nil {
			if !dropped[seg] {
				keep = append(keep, c)
			}
			continue
		}
		idx, err := strconv.Atoi(seg)
		switch {
		case err != nil || idx >= head && idx < tail:
		case idx < head:
			keep = append(keep, c)
		default:
			c.field = field + "/" + strconv.Itoa(idx-(tail-head))
			if deeper {
				c.field += "/" + after
			}
			keep = append(keep, c)
		}
	}
	w.cuts = keep
}

// skipValue returns the end of the element starting at v[i] in compact
// valid JSON (a "key":value member when member is set).
func skipValue(v []byte, i int, member bool) int {
	if member {
		i = skipString(v, i) + 1 // the colon
	}
	switch v[i] {
	case '"':
		return skipString(v, i)
	case '{', '[':
		depth := 0
		for ; i < len(v); i++ {
			switch v[i] {
			case '"':
				i = skipString(v, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(v) && v[i] != ',' && v[i] != ']' && v[i] != '}' {
		i++
	}
	return i
}

// skipString returns the index after the string starting at v[i].
func skipString(v []byte, i int) int {
	for i++; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// pointer returns the RFC 6901 JSON Pointer of the value being written.
func (w *walker) pointer() string {
	var b []byte
	for _, s := range w.path {
		b = append(b, '/')
		if s.idx >= 0 {
			b = strconv.AppendInt(b, int64(s.idx), 10)
		} else {
			b = append(b, pointerSeg(w.out[s.keyStart-1:s.keyEnd+1])...)
		}
	}
	return string(b)
}

// isSepaKey reports whether the member name q (a JSON string with its
// quotes) is one encoding/json would decode into the line's sepa object:
// "sepa" in any case, escapes decoded. Such members are renamed sepa_input.
func isSepaKey(q []byte) bool {
	if len(q) < 6 || len(q) > 64 {
		return false
	}
	var k string
	return jsonUnquote(q, &k) == nil && strings.EqualFold(k, "sepa")
}

// pointerSeg turns a member name (a valid JSON string, with its quotes)
// into a JSON Pointer segment: decoded, "~" as "~0" and "/" as "~1".
func pointerSeg(q []byte) string {
	var k string
	if jsonUnquote(q, &k) != nil {
		k = string(q)
	}
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// unescapeTo writes the decoded bytes of valid JSON string content s to h
// and returns their count.
func unescapeTo(h io.Writer, s []byte) int64 {
	var n int64
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] != '\\' {
			j++
		}
		h.Write(s[i:j])
		n += int64(j - i)
		if j >= len(s) {
			break
		}
		var r rune
		i = j + 2
		switch s[j+1] {
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			u, _ := hex4(s, j+2)
			i = j + 6
			r = u
			if u >= 0xD800 && u < 0xDC00 {
				lo, _ := hex4(s, j+8)
				r = (u-0xD800)<<10 | (lo - 0xDC00) + 0x10000
				i = j + 12
			}
		default: // '"', '\\', '/'
			r = rune(s[j+1])
		}
		k := utf8.EncodeRune(buf[:], r)
		h.Write(buf[:k])
		n += int64(k)
	}
	return n
}

// jsonUnquote decodes the valid JSON string q (with quotes) into v.
func jsonUnquote(q []byte, v *string) error {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return errors.New("not a string")
	}
	content := q[1 : len(q)-1]
	if bytes.IndexByte(content, '\\') < 0 {
		*v = string(content)
		return nil
	}
	var b bytes.Buffer
	b.Grow(len(content))
	unescapeTo(&b, content)
	*v = b.String()
	return nil
}

// topString returns the decoded string value of top-level key t, or ""
// when absent or not a string.
func (w *walker) topString(t int) string {
	sp := w.top[t]
	if sp.end == 0 {
		return ""
	}
	var s string
	if jsonUnquote(w.out[sp.start:sp.end], &s) != nil {
		return ""
	}
	return s
}
