package hooks

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// checkLine returns "" when the collector's parser (event.ParseLine) will
// accept line, an enriched line the walker wrote, and otherwise the reason
// it would give. The hook quarantines such payloads itself, keeping them
// whole, instead of leaving a line the collector can only quarantine.
// The rules are ParseLine's, applied to the line's top-level members as
// encoding/json would match them to ParseLine's fields (case-insensitively,
// the last duplicate winning); check_test.go and FuzzCheckLine hold the two
// to the same answers.
func checkLine(line []byte) string {
	var (
		sessionID, hookEvent, tool, session, ts optString
		typeErr                                 string
	)
	eachMember(line, func(name string, v []byte) {
		kind := jsonKind(v)
		switch foldName(name) {
		case "cwd", "transcript_path", "tool_name", "tool_use_id", "prompt",
			"last_assistant_message", "agent_id", "agent_type", "command_name",
			"expansion_type", "prompt_id":
			if kind != '"' && kind != 'n' && typeErr == "" {
				typeErr = name + " is " + kindName(kind) + ", not a string"
			}
		case "session_id":
			sessionID.set(name, v, kind, &typeErr)
		case "hook_event_name":
			hookEvent.set(name, v, kind, &typeErr)
		case "tool":
			tool.set(name, v, kind, &typeErr)
		case "session":
			session.set(name, v, kind, &typeErr)
		case "ts":
			ts.set(name, v, kind, &typeErr)
		case "exit", "success", "version":
			var o optString
			o.set(name, v, kind, &typeErr)
		}
	})
	if typeErr != "" {
		return "invalid JSON: " + typeErr
	}
	if !hookEvent.ok && !sessionID.ok && tool.ok {
		// A line of the original SEPA logger.
		if session.s == "" {
			return "legacy line without session"
		}
		if ts.s != "" && !legacyTime(ts.s) {
			t := ts.s
			if len(t) > 40 {
				t = t[:40] + "…"
			}
			return "legacy ts " + strconv.Quote(t) + ": not a time"
		}
		return ""
	}
	if sessionID.s == "" {
		return "missing session_id"
	}
	if hookEvent.s == "" {
		return "missing hook_event_name"
	}
	return ""
}

// optString is a *string field of ParseLine's payload: null unsets it.
type optString struct {
	s  string
	ok bool
}

func (o *optString) set(name string, v []byte, kind byte, typeErr *string) {
	switch kind {
	case 'n':
		*o = optString{}
	case '"':
		o.ok = true
		if jsonUnquote(v, &o.s) != nil {
			o.s = ""
		}
	default:
		if *typeErr == "" {
			*typeErr = name + " is " + kindName(kind) + ", not a string"
		}
	}
}

// legacyTime is the legacy parser's time test: RFC 3339, or Unix seconds.
func legacyTime(s string) bool {
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return true
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f > 0 && f < 1e11
}

// foldName folds a member name the way encoding/json matches names to
// fields (bytes.EqualFold): ASCII letters to lower case, and the two
// non-ASCII runes whose case folding reaches an ASCII letter, KELVIN SIGN
// to k and LATIN SMALL LETTER LONG S to s. Other runes are kept; no field
// name contains them.
func foldName(name string) string {
	plain := true
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			plain = false
			break
		}
	}
	if plain {
		return name
	}
	b := make([]byte, 0, len(name))
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			r += 'a' - 'A'
		case r == 0x212A:
			r = 'k'
		case r == 0x17F:
			r = 's'
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// jsonKind returns the kind of the JSON value v by its first byte:
// '"', '{', '[', 't', 'f', 'n', or '0' for a number.
func jsonKind(v []byte) byte {
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; c {
	case '"', '{', '[', 't', 'f', 'n':
		return c
	}
	return '0'
}

func kindName(kind byte) string {
	switch kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case '0':
		return "a number"
	}
	return "a value"
}

// eachMember calls fn with the decoded name and the raw value of each
// member of the JSON object obj, which must be compact valid JSON (the
// walker's output).
func eachMember(obj []byte, fn func(name string, v []byte)) {
	i := skipWS(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i = skipWS(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		ke := skipString(obj, i)
		var name string
		if jsonUnquote(obj[i:ke], &name) != nil {
			return
		}
		i = skipWS(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		vs := skipWS(obj, i+1)
		if vs >= len(obj) {
			return
		}
		ve := skipValue(obj, vs, false)
		fn(name, obj[vs:ve])
		i = skipWS(obj, ve)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
