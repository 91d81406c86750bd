package event

import (
	"encoding/json"
	"unicode/utf8"
)

// fastDecode fills p from line in one pass, for the common shape of a hook
// payload. It gives up (false) on anything where its result could differ
// from json.Unmarshal's: a key that only matches a field case-insensitively,
// a field of an unexpected JSON type, a repeated "sepa", nesting deeper than
// encoding/json allows, or any invalid JSON. The caller then decodes with
// json.Unmarshal, so the result never depends on which path ran
// (FuzzFastDecode checks exactly that).
func fastDecode(line []byte, p *payload) bool {
	d := fastDecoder{b: line}
	d.ws()
	if !d.eat('{') {
		return false
	}
	d.ws()
	if d.eat('}') {
		return d.end()
	}
	sawSepa := false
	for {
		d.ws()
		ks, ke, ok := d.str()
		if !ok {
			return false
		}
		d.ws()
		if !d.eat(':') {
			return false
		}
		d.ws()
		vs := d.i
		if !d.skip(0) {
			return false
		}
		v := d.b[vs:d.i]
		if !p.set(string(d.b[ks:ke]), v, &sawSepa) {
			return false
		}
		d.ws()
		if d.eat(',') {
			continue
		}
		if d.eat('}') {
			return d.end()
		}
		return false
	}
}

type fastDecoder struct {
	b []byte
	i int
}

func (d *fastDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) eat(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

func (d *fastDecoder) end() bool {
	d.ws()
	return d.i == len(d.b)
}

// str consumes a string and returns the span of its raw content (without
// quotes); it refuses escapes, which only keys with escapes would need.
func (d *fastDecoder) str() (int, int, bool) {
	if !d.eat('"') {
		return 0, 0, false
	}
	s := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return s, d.i - 1, true
		case c == '\\' || c < 0x20:
			return 0, 0, false
		}
		d.i++
	}
	return 0, 0, false
}

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// skip consumes one JSON value, validating it as encoding/json does.
func (d *fastDecoder) skip(depth int) bool {
	if d.i >= len(d.b) || depth > maxDepth-2 {
		return false
	}
	switch c := d.b[d.i]; {
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		d.i++
		d.ws()
		if d.eat(closing) {
			return true
		}
		for {
			d.ws()
			if c == '{' {
				if !d.skipString() {
					return false
				}
				d.ws()
				if !d.eat(':') {
					return false
				}
				d.ws()
			}
			if !d.skip(depth + 1) {
				return false
			}
			d.ws()
			if d.eat(',') {
				continue
			}
			return d.eat(closing)
		}
	case c == '"':
		return d.skipString()
	case c == 't':
		return d.lit("true")
	case c == 'f':
		return d.lit("false")
	case c == 'n':
		return d.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return false
}

func (d *fastDecoder) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

func (d *fastDecoder) skipString() bool {
	if !d.eat('"') {
		return false
	}
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return true
		case c < 0x20:
			return false
		case c == '\\':
			d.i++
			if d.i >= len(d.b) {
				return false
			}
			switch d.b[d.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				if len(d.b)-d.i < 5 {
					return false
				}
				for _, h := range d.b[d.i+1 : d.i+5] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				d.i += 5
			default:
				return false
			}
		default:
			d.i++
		}
	}
	return false
}

func (d *fastDecoder) number() bool {
	d.eat('-')
	digits := func() bool {
		s := d.i
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
		}
		return d.i > s
	}
	if d.eat('0') {
		// no more integer digits after a leading zero
	} else if !digits() {
		return false
	}
	if d.eat('.') && !digits() {
		return false
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if !d.eat('+') {
			d.eat('-')
		}
		if !digits() {
			return false
		}
	}
	return true
}

// str decodes a string value exactly as encoding/json would (plain ASCII
// and valid UTF-8 without escapes directly, anything else through
// encoding/json); ok is false when v is not a string.
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	plain := true
	for _, c := range in {
		if c == '\\' || c < 0x20 {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(in) {
		return string(in), true
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// set stores one member; false means "let encoding/json decide".
func (p *payload) set(key string, v []byte, sawSepa *bool) bool {
	isNull := string(v) == "null"
	str := func(dst *string) bool {
		if isNull {
			return true // null leaves a string unchanged
		}
		s, ok := jsonString(v)
		*dst = s
		return ok
	}
	ptr := func(dst **string) bool {
		if isNull {
			*dst = nil
			return true
		}
		s, ok := jsonString(v)
		*dst = &s
		return ok
	}
	switch key {
	case "session_id":
		return ptr(&p.SessionID)
	case "hook_event_name":
		return ptr(&p.HookEventName)
	case "cwd":
		return str(&p.Cwd)
	case "transcript_path":
		return str(&p.TranscriptPath)
	case "tool_name":
		return str(&p.ToolName)
	case "tool_use_id":
		return str(&p.ToolUseID)
	case "prompt":
		return str(&p.Prompt)
	case "last_assistant_message":
		return str(&p.LastMessage)
	case "agent_id":
		return str(&p.AgentID)
	case "agent_type":
		return str(&p.AgentType)
	case "command_name":
		return str(&p.CommandName)
	case "expansion_type":
		return str(&p.ExpansionType)
	case "prompt_id":
		return str(&p.PromptID)
	case "file_path":
		return str(&p.FilePath)
	case "memory_type":
		return str(&p.MemoryType)
	case "load_reason":
		return str(&p.LoadReason)
	case "source":
		p.Source = rawRef(v)
	case "ts":
		return ptr(&p.TS)
	case "tool":
		return ptr(&p.Tool)
	case "exit":
		return ptr(&p.Exit)
	case "success":
		return ptr(&p.Success)
	case "version":
		return ptr(&p.Version)
	case "session":
		return ptr(&p.Session)
	case "tool_input":
		p.ToolInput = rawRef(v)
	case "tool_response":
		p.ToolResponse = rawRef(v)
	case "error":
		p.Error = rawRef(v)
	case "is_interrupt":
		p.IsInterrupt = rawRef(v)
	case "duration_ms":
		p.DurationMS = rawRef(v)
	case "sepa":
		if *sawSepa {
			return false // encoding/json would merge the two objects
		}
		*sawSepa = true
		if isNull {
			p.Sepa = nil
			return true
		}
		sp, ok := fastSepa(v)
		if !ok {
			sp = &Sepa{}
			if json.Unmarshal(v, sp) != nil {
				return false
			}
		}
		p.Sepa = sp
	default:
		// encoding/json matches keys case-insensitively (with Unicode
		// folding): leave any key that could match a field to it.
		return !foldsToField(key)
	}
	return true
}

var fieldNames = []string{"session_id", "hook_event_name", "cwd", "transcript_path", "tool_name", "tool_input",
	"tool_response", "tool_use_id", "error", "is_interrupt", "duration_ms", "prompt", "last_assistant_message",
	"agent_id", "agent_type", "command_name", "expansion_type", "prompt_id", "file_path", "memory_type", "load_reason", "source", "sepa", "ts", "tool", "exit",
	"success", "version", "session"}

// foldsToField reports whether key might match a field name under
// encoding/json's case folding: any non-ASCII key, or an ASCII key equal to
// a field name ignoring case.
func foldsToField(key string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= 0x80 {
			return true
		}
	}
	for _, f := range fieldNames {
		if len(f) == len(key) && asciiEqualFold(f, key) {
			return true
		}
	}
	return false
}

func asciiEqualFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
