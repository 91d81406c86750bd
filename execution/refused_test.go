package execution

import "testing"

func TestDeniedAndCompacted(t *testing.T) {
	const s = `"session_id":"s","cwd":"/p"`
	ts := func(n int) string { return `"sepa":{"v":1,"ts":"2026-11-24T10:00:0` + string(rune('0'+n)) + `Z"}` }
	xs := groupLines(t,
		`{`+s+`,"hook_event_name":"UserPromptSubmit","prompt":"make a file",`+ts(0)+`}`,
		`{`+s+`,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"touch x"},"tool_use_id":"a",`+ts(1)+`}`,
		`{`+s+`,"hook_event_name":"PermissionDenied","tool_name":"Bash","tool_input":{"command":"touch x"},"tool_use_id":"a","reason":"Classifier unavailable",`+ts(2)+`}`,
		`{`+s+`,"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/p/README"},"tool_use_id":"b",`+ts(3)+`}`,
		`{`+s+`,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"/p/README"},"tool_use_id":"b",`+ts(4)+`}`,
		`{`+s+`,"hook_event_name":"PreCompact","trigger":"auto",`+ts(5)+`}`,
		`{`+s+`,"hook_event_name":"PostCompact","trigger":"auto","compact_summary":"Done.",`+ts(6)+`}`,
		`{`+s+`,"hook_event_name":"Stop","last_assistant_message":"ok",`+ts(7)+`}`,
		// A /compact between turns cuts nothing.
		`{`+s+`,"hook_event_name":"PreCompact","trigger":"manual",`+ts(8)+`}`,
		`{`+s+`,"hook_event_name":"PostCompact","trigger":"manual",`+ts(9)+`}`,
	)
	if len(xs) != 1 {
		t.Fatalf("want one execution: %+v", xs)
	}
	x := xs[0]
	c := x.Calls[0]
	if !c.Denied || c.NoPost || c.Error != "Classifier unavailable" || c.OK() || c.Failure() {
		t.Errorf("denied call %+v", c)
	}
	if x.Failures() != 0 || x.Denials() != 1 || len(x.Calls) != 2 {
		t.Errorf("failures %d denials %d calls %d", x.Failures(), x.Denials(), len(x.Calls))
	}
	if len(x.Compactions) != 1 || x.Compactions[0].Trigger != "auto" || !x.Compactions[0].Done {
		t.Errorf("compactions %+v", x.Compactions)
	}
}
