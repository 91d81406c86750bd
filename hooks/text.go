package hooks

import (
	"strings"
	"unicode"
)

// oneLine flattens s to one line of at most n bytes: its white-space
// separated words joined by single spaces (strings.Fields, then Join).
func oneLine(s string, n int) string {
	b := []byte(strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " "))
	if len(b) > n {
		b = append(b[:n], "…"...)
	}
	return string(b)
}
