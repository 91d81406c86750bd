package hooks

import (
	"bytes"
	"unicode/utf8"
)

// Repairs (docs/events.md, "Repairs"): what hook payloads have been seen to
// hold that JSON forbids. encoding/json refuses a raw control character
// or an unknown escape in a string, a NUL between tokens and a byte order
// mark, and silently turns invalid UTF-8 and escaped lone surrogates into
// U+FFFD; no JSON library repairs the first kind. repair rewrites all six
// into valid JSON with the same text, and says which it met, so that the
// walk (walk.go) reads strict JSON and copies its strings as they are.

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

// repairedNames lists the repairs in flags, for sepa.repaired.
func repairedNames(flags int) []string {
	var names []string
	for i, n := range repairNames {
		if flags&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return names
}

var bom = []byte("\xef\xbb\xbf")

// mayNeedRepair reports whether p may hold what encoding/json would accept
// and change without a word: invalid UTF-8, or an escaped surrogate (which
// may be a lone one). Other defects make the walk fail, and Enrich
// repairs then.
func mayNeedRepair(p []byte) bool {
	return !utf8.Valid(p) || bytes.Contains(p, []byte(`\ud`)) || bytes.Contains(p, []byte(`\uD`))
}

// repair returns p with the defects above repaired, and the repairs made.
// It knows only where strings begin and end; whether the rest is JSON is
// left to encoding/json.
func repair(p []byte) ([]byte, int) {
	flags := 0
	if bytes.HasPrefix(p, bom) {
		p = p[len(bom):]
		flags |= repairBOM
	}
	out := make([]byte, 0, len(p)+16)
	inString := false
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case !inString && c == 0:
			flags |= repairNUL // dropped between tokens
			i++
		case !inString:
			inString = c == '"'
			out = append(out, c)
			i++
		case c == '"':
			inString = false
			out = append(out, c)
			i++
		case c == '\\':
			var n, f int
			out, n, f = fixEscape(out, p[i:])
			flags |= f
			i += n
		case c < 0x20:
			if c == 0 {
				flags |= repairNUL
			} else {
				flags |= repairControl
			}
			out = appendControl(out, c)
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && n == 1 {
				flags |= repairUTF8
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, p[i:i+n]...)
			}
			i += n
		}
	}
	return out, flags
}

// fixEscape copies the escape at the start of s (a backslash) to out,
// repaired, and returns how many bytes of s it took and the repair made.
func fixEscape(out, s []byte) ([]byte, int, int) {
	if len(s) < 2 {
		return append(out, `\\`...), 1, repairEscape
	}
	switch s[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return append(out, s[:2]...), 2, 0
	case 'u':
		u, ok := hex4(s[2:])
		if !ok {
			break
		}
		if u < 0xD800 || u >= 0xE000 {
			return append(out, s[:6]...), 6, 0
		}
		if u < 0xDC00 && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if lo, ok := hex4(s[8:]); ok && lo >= 0xDC00 && lo < 0xE000 {
				return append(out, s[:12]...), 12, 0 // a surrogate pair
			}
		}
		return append(out, `\ufffd`...), 6, repairSurrogate
	}
	// Not a JSON escape: keep the backslash as a character.
	return append(out, `\\`...), 1, repairEscape
}

// appendControl appends the escape of the control character c.
func appendControl(out []byte, c byte) []byte {
	switch c {
	case '\n':
		return append(out, `\n`...)
	case '\r':
		return append(out, `\r`...)
	case '\t':
		return append(out, `\t`...)
	}
	const hex = "0123456789abcdef"
	return append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
}

// hex4 reads the four hex digits of a \u escape at the start of s.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
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
