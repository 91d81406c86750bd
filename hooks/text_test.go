package hooks

import (
	"strings"
	"testing"
)

func TestOneLineCuts(t *testing.T) {
	if got := oneLine("  abc   def  ", 5); got != "abc d…" {
		t.Fatalf("oneLine = %q", got)
	}
}

// TestParseArgs: a bad flag keeps the flags before it and says what was
// ignored, so the event is still recorded where the user asked.
func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		home    string
		max     int
		help    bool
		noteHas string
	}{
		{nil, "", DefaultMaxField, false, ""},
		{[]string{"--home", "/h", "--max-field", "300"}, "/h", 300, false, ""},
		{[]string{"--home", "/h", "--nope", "--max-field", "5"}, "/h", DefaultMaxField, false, "not defined: -nope"},
		{[]string{"--max-field", "lots"}, "", DefaultMaxField, false, "invalid value"},
		{[]string{"--home"}, "", DefaultMaxField, false, "needs an argument"},
		{[]string{"--help"}, "", DefaultMaxField, true, ""},
	} {
		o, help, note := parseArgs(tc.args)
		if o.Home != tc.home || o.maxField() != tc.max || help != tc.help || !strings.Contains(note, tc.noteHas) || (tc.noteHas == "") != (note == "") {
			t.Errorf("%q: home %q max %d help %v note %q", tc.args, o.Home, o.maxField(), help, note)
		}
	}
}
