package hooks

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sepad/sepad/event"
)

// FuzzEnrich: whatever comes in, Enrich writes one line of valid UTF-8
// JSON that event.ParseLine accepts or that is a Quarantined line, and a
// payload that was valid JSON and needed no cut keeps its values.
// Seeds: testdata/fuzz/FuzzEnrich/.
func FuzzEnrich(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"../../etc"}}`))
	f.Add([]byte("{\"session_id\":\"s\",\"hook_event_name\":\"Stop\",\"x\":\"\xff\\ud800\"}"))
	f.Add([]byte(`not json`))
	opts := Options{NoFiles: true, MaxField: 300}
	f.Fuzz(func(t *testing.T, in []byte) {
		out := Enrich(in, t0, opts)
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("invalid line %q from %q", out, in)
		}
		if bytes.ContainsAny(out, "\n\r") {
			t.Fatalf("line has a raw newline: %q", out)
		}
		ev, err := event.ParseLine(out)
		if err != nil {
			if ev.HookEvent != event.Quarantined {
				t.Fatalf("ParseLine: %v on %q", err, out)
			}
			return
		}
		var s struct{ Sepa *event.Sepa }
		if json.Unmarshal(out, &s) != nil || s.Sepa == nil || s.Sepa.V != event.SchemaVersion || !s.Sepa.TS.Equal(t0) {
			t.Fatalf("sepa missing or wrong: %q", out)
		}
		if ev.Format == event.FormatEnriched && ev.Sepa == nil {
			t.Fatalf("enriched line without sepa: %q", out)
		}
		// Semantics kept when nothing had to be cut.
		if len(s.Sepa.Cut) > 0 || !json.Valid(in) {
			return
		}
		var a, b map[string]any
		if json.Unmarshal(in, &a) != nil || json.Unmarshal(out, &b) != nil {
			return
		}
		delete(b, "sepa")
		var sepaKeys []string // members renamed sepa_input
		for k := range a {
			if strings.EqualFold(k, "sepa") {
				sepaKeys = append(sepaKeys, k)
			}
		}
		if len(sepaKeys) > 1 {
			return // several collapse into one sepa_input
		}
		for _, k := range sepaKeys {
			a["sepa_input"] = a[k]
			delete(a, k)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("values changed:\n in  %q\n out %q", in, out)
		}
	})
}
