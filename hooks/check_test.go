package hooks

import (
	"testing"
	"time"

	"github.com/sepad/sepad/event"
)

// checkCases are payloads on both sides of every rule of checkLine.
var checkCases = []struct {
	name, in, reason string
}{
	{"minimal", `{"session_id":"s","hook_event_name":"Stop"}`, ""},
	{"missing session", `{"hook_event_name":"Stop"}`, "missing session_id"},
	{"empty session", `{"session_id":"","hook_event_name":"Stop"}`, "missing session_id"},
	{"null session", `{"session_id":null,"hook_event_name":"Stop"}`, "missing session_id"},
	{"session then null", `{"session_id":"s","session_id":null,"hook_event_name":"Stop"}`, "missing session_id"},
	{"null then session", `{"session_id":null,"session_id":"s","hook_event_name":"Stop"}`, ""},
	{"missing event", `{"session_id":"s"}`, "missing hook_event_name"},
	{"upper-case keys", `{"SESSION_ID":"s","Hook_Event_Name":"Stop"}`, ""},
	{"kelvin sign", "{\"session_id\":\"s\",\"hoo\u212a_event_name\":\"Stop\"}", ""},
	{"long s", "{\"\u017fession_id\":\"s\",\"hook_event_name\":\"Stop\"}", ""},
	{"escaped key", `{"session\u005fid":"s","hook_event_name":"Stop"}`, ""},
	{"number cwd", `{"session_id":"s","hook_event_name":"Stop","cwd":5}`, "invalid JSON: json: cannot unmarshal number into Go struct field payload.cwd of type string"},
	{"object prompt", `{"session_id":"s","hook_event_name":"Stop","Prompt":{}}`, "invalid JSON: json: cannot unmarshal object into Go struct field payload.prompt of type string"},
	{"null cwd", `{"session_id":"s","hook_event_name":"Stop","cwd":null}`, ""},
	{"bool session", `{"session_id":true,"hook_event_name":"Stop"}`, "invalid JSON: json: cannot unmarshal bool into Go struct field payload.session_id of type string"},
	{"array exit", `{"session_id":"s","hook_event_name":"Stop","exit":[]}`, "invalid JSON: json: cannot unmarshal array into Go struct field payload.exit of type string"},
	{"any tool_input", `{"session_id":"s","hook_event_name":"Stop","tool_input":7,"error":{},"duration_ms":"x"}`, ""},
	{"unknown keys", `{"session_id":"s","hook_event_name":"Stop","x":{"cwd":5}}`, ""},
	{"payload sepa renamed", `{"session_id":"s","hook_event_name":"Stop","SEPA":5,"sepa":{"v":99}}`, ""},
	{"legacy", `{"tool":"Bash","session":"x","exit":"0","ts":"2026-01-02T03:04:05Z"}`, ""},
	{"legacy unix ts", `{"tool":"Bash","session":"x","ts":"1767000000.5"}`, ""},
	{"legacy no session", `{"tool":"Bash","exit":"0"}`, "legacy line without session"},
	{"legacy bad ts", `{"tool":"Bash","session":"x","ts":"yesterday"}`, `legacy ts "yesterday": not a time`},
	{"legacy with session_id", `{"tool":"Bash","session_id":"s"}`, "missing hook_event_name"},
	{"tool null is not legacy", `{"tool":null,"session":"x"}`, "missing session_id"},
}

func TestCheckLine(t *testing.T) {
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			line, _, _, reason := rewrite([]byte(tc.in), t0, Options{NoFiles: true})
			if reason != "" {
				t.Fatalf("rewrite: %s", reason)
			}
			if got := checkLine(line); got != tc.reason {
				t.Fatalf("checkLine = %q, want %q\nline %s", got, tc.reason, line)
			}
			_, err := event.ParseLine(line)
			if (err == nil) != (tc.reason == "") {
				t.Fatalf("ParseLine disagrees: %v\nline %s", err, line)
			}
		})
	}
}

// FuzzCheckLine holds checkLine to event.ParseLine: the hook quarantines a
// payload exactly when the collector would refuse its line.
// Seeds: checkCases and testdata/fuzz/FuzzCheckLine/.
func FuzzCheckLine(f *testing.F) {
	for _, tc := range checkCases {
		f.Add([]byte(tc.in))
	}
	opts := Options{NoFiles: true, MaxField: 200}
	f.Fuzz(func(t *testing.T, in []byte) {
		line, _, _, reason := rewrite(in, time.Unix(1, 0), opts)
		if reason != "" {
			return
		}
		got := checkLine(line)
		_, err := event.ParseLine(line)
		if (got == "") != (err == nil) {
			t.Fatalf("checkLine %q, ParseLine %v\nline %q", got, err, line)
		}
	})
}
