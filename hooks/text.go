package hooks

import "unicode/utf8"

// The hook's string helpers. Package strings is deliberately not imported
// here: in the sepad binary it sorts late in Go's package initialisation
// order, and needing it made about forty unrelated package inits (crypto,
// protobuf, database/sql, ...) run before `sepad hook` could start on
// every tool call. Each helper behaves like its namesake in package strings
// (text_test.go checks them against it).

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

func hasSuffix(s, suffix string) bool {
	return len(s) >= len(suffix) && s[len(s)-len(suffix):] == suffix
}

func trimPrefix(s, prefix string) string {
	if hasPrefix(s, prefix) {
		return s[len(prefix):]
	}
	return s
}

func cutPrefix(s, prefix string) (string, bool) {
	if hasPrefix(s, prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// index returns the index of the first sub in s, or -1.
func index(s, sub string) int {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if s[i:i+n] == sub {
			return i
		}
	}
	return -1
}

func contains(s, sub string) bool { return index(s, sub) >= 0 }

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func cut(s, sep string) (before, after string, found bool) {
	if i := index(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// replaceAll replaces every old in s by new; old is never empty here.
func replaceAll(s, old, new string) string {
	i := index(s, old)
	if i < 0 {
		return s
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		b = append(b, new...)
		s = s[i+len(old):]
		i = index(s, old)
	}
	return string(append(b, s...))
}

// isSpace is unicode.IsSpace: the Unicode White_Space property.
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// trimSpace is strings.TrimSpace.
func trimSpace(s string) string {
	for len(s) > 0 {
		r, n := rune(s[0]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s)
		}
		if !isSpace(r) {
			break
		}
		s = s[n:]
	}
	for len(s) > 0 {
		r, n := rune(s[len(s)-1]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeLastRuneInString(s)
		}
		if !isSpace(r) {
			break
		}
		s = s[:len(s)-n]
	}
	return s
}

// trimQuotes is strings.Trim(s, `"'`).
func trimQuotes(s string) string {
	for len(s) > 0 && (s[0] == '"' || s[0] == '\'') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == '"' || s[len(s)-1] == '\'') {
		s = s[:len(s)-1]
	}
	return s
}

// oneLine flattens s to one line of at most n bytes: its white-space
// separated words joined by single spaces (strings.Fields, then Join).
func oneLine(s string, n int) string {
	b := make([]byte, 0, len(s))
	for s != "" {
		r, size := utf8.DecodeRuneInString(s)
		if isSpace(r) {
			if len(b) > 0 && b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
		} else {
			b = append(b, s[:size]...)
		}
		s = s[size:]
	}
	if len(b) > 0 && b[len(b)-1] == ' ' {
		b = b[:len(b)-1]
	}
	if len(b) > n {
		b = append(b[:n], "…"...)
	}
	return string(b)
}

// opError is an error with its context, like fmt.Errorf("%s: %w").
type opError struct {
	op  string
	err error
}

func (e *opError) Error() string { return e.op + ": " + e.err.Error() }
func (e *opError) Unwrap() error { return e.err }

// wrap returns err with context op; nil stays nil.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	return &opError{op, err}
}

// panicText describes a recovered panic value without package fmt.
func panicText(p any) string {
	switch v := p.(type) {
	case error:
		return v.Error()
	case string:
		return v
	case interface{ String() string }:
		return v.String()
	}
	return "panic"
}

// pathError is os.PathError, for the hook that does not import os.
type pathError struct {
	op, path string
	err      error
}

func (e *pathError) Error() string { return e.op + " " + e.path + ": " + e.err.Error() }
func (e *pathError) Unwrap() error { return e.err }
