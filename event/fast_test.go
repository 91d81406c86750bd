package event

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fastCases are lines where the fast path must agree with encoding/json,
// or give up.
var fastCases = []string{
	`{"session_id":"s","hook_event_name":"PostToolUse","tool_input":{"a":[1,2.5e-3,-0,true,null,"x\"y"]},"tool_response":"é\u00e9","duration_ms":12}`,
	`{"session_id":null,"hook_event_name":"Stop","cwd":null}`,
	`{"session_id":"s","hook_event_name":"Stop","SESSION_ID":"t"}`,
	`{"session_id":"s","hook_event_name":"Stop","ſession_id":"t"}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1,"ts":"2026-01-01T00:00:00Z"},"sepa":{"skill":"x"}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":null}`,
	`{"session_id":"s","hook_event_name":"Stop","prompt":"tab\there"}`,
	`{"session_id":"s","hook_event_name":"Stop","prompt":"a\\nb"}`,
	`{"session_id":"s","hook_event_name":"Stop","prompt":"\xff\xfe"}`,
	`{"session_id":"s","hook_event_name":"Stop","prompt":5}`,
	`{"session_id":"s","hook_event_name":"Stop","x":01}`,
	`{"session_id":"s","hook_event_name":"Stop","x":[1,]}`,
	`{"session_id":"s","hook_event_name":"Stop"} x`,
	`{"se\u0073sion_id":"s","hook_event_name":"Stop"}`,
	`{"ts":"1","tool":"Bash","exit":"0","success":"true","version":"v","session":"s"}`,
	` {"session_id" : "s" , "hook_event_name" : "Stop" } `,
	`{}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1,"ts":"2026-01-01T00:00:00.123456789Z","skill":"d","skill_path":"/p","skill_version":"0123456789ab","project":"/p"}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1,"ts":null,"skill":null,"cut":[{"field":"/a","len":9,"sha256":"x"}]}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1.0,"ts":"bad"}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"V":2,"TS":"2026-01-01T00:00:00Z","Skill":"x","other":[1]}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1,"v":2}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":-1,"quarantine":"q","raw":"r\u0000"}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":99999999999}}`,
	`{"session_id":"s","hook_event_name":"Stop","sepa":{}}`,
	`{"session_id":"s","hook_event_name":"Stop","deep":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`,
}

func agree(t *testing.T, line []byte) {
	var fast payload
	ok := fastDecode(line, &fast)
	var slow payload
	err := json.Unmarshal(line, &slow)
	if !ok {
		return // encoding/json decides
	}
	if err != nil {
		t.Fatalf("fast path accepted %q, encoding/json says %v", line, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("fast path differs on %q:\nfast %+v\nslow %+v", line, fast, slow)
	}
}

func TestFastDecodeAgrees(t *testing.T) {
	for _, c := range fastCases {
		agree(t, []byte(c))
	}
	// Every fixture line takes the fast path and agrees.
	files, _ := filepath.Glob("../testdata/sessions/*.jsonl")
	fast := 0
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			agree(t, []byte(l))
			var p payload
			if fastDecode([]byte(l), &p) {
				fast++
			}
		}
	}
	if fast < 80 {
		t.Fatalf("only %d fixture lines took the fast path", fast)
	}
}

func FuzzFastDecode(f *testing.F) {
	for _, c := range fastCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { agree(t, b) })
}
