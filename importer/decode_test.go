package importer

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf16"
)

func TestRepair(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Ã©", "é"},
		{"donâ€™t", "don’t"},
		{"done â€” ok", "done — ok"},
		{"café", "café"},   // correct text is left alone
		{"plain", "plain"}, // ASCII
		{"日本語", "日本語"},     // not Windows-1252
		{"Ã", "Ã"},         // alone, not valid UTF-8 once mapped back
		{"Ð¿Ñ€Ð¸Ð²ÐµÑ‚", "привет"},
	} {
		got, _ := Repair(c.in)
		if got != c.want {
			t.Errorf("Repair(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func payloadOf(t *testing.T, r Record) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Payload, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDecodeEncodings(t *testing.T) {
	text := `[{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"café ’x’"}]`
	u := utf16.Encode([]rune(text))
	le := []byte{0xFF, 0xFE}
	for _, c := range u {
		le = append(le, byte(c), byte(c>>8))
	}
	cp := []byte(strings.NewReplacer("é", "\xe9", "’", "\x92").Replace(text))
	for _, c := range []struct {
		name string
		data []byte
		enc  string
	}{
		{"utf16", le, "utf-16le"},
		{"cp1252", cp, "windows-1252"},
		{"bom", append([]byte{0xEF, 0xBB, 0xBF}, text...), ""},
	} {
		recs, skips, rep := DecodeFile("user_prompt_submit.json", c.data)
		if len(recs) != 1 || len(skips) != 0 || rep.Encoding != c.enc {
			t.Fatalf("%s: %d records, skips %v, encoding %q", c.name, len(recs), skips, rep.Encoding)
		}
		if p := payloadOf(t, recs[0])["prompt"]; p != "café ’x’" {
			t.Errorf("%s: prompt %q", c.name, p)
		}
	}
}

func TestDecodeShapes(t *testing.T) {
	for _, c := range []struct {
		name, file, data string
		recs             int
		skip             string // substring of the first skip's reason
	}{
		{"event from file name", "pre_tool_use.json", `[{"session_id":"s","tool_name":"Bash","tool_use_id":"t"}]`, 1, ""},
		{"no event anywhere", "misc.json", `[{"session_id":"s"}]`, 0, "no hook_event_name"},
		{"no session", "stop.json", `[{"hook_event_name":"Stop"}]`, 0, "Stop without session_id"},
		{"not an object", "stop.json", `[1, {"session_id":"s"}]`, 1, "not a JSON object"},
		{"cut before ]", "stop.json", `[{"session_id":"s"}`, 1, "no closing ]"},
		{"cut in an element", "stop.json", `[{"session_id":"s"}, {"sess`, 1, "ends inside element 2"},
		{"two arrays", "stop.json", `[{"session_id":"a"}][{"session_id":"b"}]`, 2, ""},
		{"trailing garbage", "stop.json", `[{"session_id":"a"}] x`, 1, "trailing data"},
		{"raw_input string", "stop.json", `[{"raw_input":"{\"session_id\":\"s\"}","logged_at":"2026-01-01T00:00:00"}]`, 1, ""},
		{"raw_input not JSON", "stop.json", `[{"raw_input":"nope"}]`, 0, "not JSON"},
		{"jsonl", "hooks.jsonl", "{\"session_id\":\"s\",\"hook_event_name\":\"Stop\"}\n\nnot json\n", 1, "invalid JSON"},
		{"legacy line", "sepa.jsonl", `{"ts":"2026-01-01T00:00:00Z","tool":"Bash","exit":"0","session":"s"}`, 1, ""},
		{"empty", "stop.json", "  \n", 0, ""},
	} {
		recs, skips, _ := DecodeFile(c.file, []byte(c.data))
		if len(recs) != c.recs {
			t.Errorf("%s: %d records, want %d (skips %v)", c.name, len(recs), c.recs, skips)
		}
		switch {
		case c.skip == "" && len(skips) > 0:
			t.Errorf("%s: unexpected skips %v", c.name, skips)
		case c.skip != "" && (len(skips) == 0 || !strings.Contains(skips[0].Reason, c.skip)):
			t.Errorf("%s: skips %v, want one with %q", c.name, skips, c.skip)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, s := range []string{"2026-03-02T10:00:00.123456", "2026-03-02T10:00:00.123456Z", "2026-03-02T12:00:00.123456+02:00",
		"2026-03-02 10:00:00.123456", "1772445600.123456", "1772445600123.456"} {
		got := parseTime(s)
		if got.IsZero() || got.Unix() != 1772445600 {
			t.Errorf("parseTime(%q) = %v", s, got)
		}
	}
	if !parseTime("yesterday").IsZero() {
		t.Error("a word parsed as a time")
	}
}

// TestPrepareOrderAndDedup: two files of one session without times are
// ordered by the documented file order; the same payload in two files is
// kept once; a session with times sorts by time.
func TestPrepareOrderAndDedup(t *testing.T) {
	stop, _, _ := DecodeFile("stop.json", []byte(`[{"session_id":"s","hook_event_name":"Stop"}]`))
	pre, _, _ := DecodeFile("pre_tool_use.json", []byte(`[{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1"}]`))
	dup, _, _ := DecodeFile("all.jsonl", []byte(`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1"}`))
	timed, _, _ := DecodeFile("all.jsonl", []byte("{\"session_id\":\"u\",\"hook_event_name\":\"Stop\",\"logged_at\":\"2026-01-01T00:00:02Z\"}\n"+
		"{\"session_id\":\"u\",\"hook_event_name\":\"UserPromptSubmit\",\"logged_at\":\"2026-01-01T00:00:01Z\"}"))
	all := append(append(append(stop, pre...), dup...), timed...)
	got, dups := Prepare(all)
	if dups != 1 || len(got) != 4 {
		t.Fatalf("%d kept, %d duplicates", len(got), dups)
	}
	var order []string
	for _, r := range got {
		order = append(order, r.Session+":"+r.Event)
	}
	// u has times (2026-01-01) and comes first; s has none.
	if w := "u:UserPromptSubmit u:Stop s:PreToolUse s:Stop"; strings.Join(order, " ") != w {
		t.Errorf("order %v, want %s", order, w)
	}
	if !got[2].Unknown {
		t.Error("a Pre in a session without post events is not of unknown outcome")
	}
}

// TestUnknownSpan: a Pre without a post event inside the span of the
// session's post events failed; outside it, its outcome is unknown.
func TestUnknownSpan(t *testing.T) {
	log := ""
	for _, l := range []string{
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"A","tool_use_id":"early","logged_at":"2026-01-01T00:00:01Z"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"B","tool_use_id":"b","logged_at":"2026-01-01T00:00:02Z"}`,
		`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"B","tool_use_id":"b","logged_at":"2026-01-01T00:00:03Z"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"C","tool_use_id":"inside","logged_at":"2026-01-01T00:00:04Z"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"D","tool_use_id":"d","logged_at":"2026-01-01T00:00:05Z"}`,
		`{"session_id":"s","hook_event_name":"PostToolUseFailure","tool_name":"D","tool_use_id":"d","logged_at":"2026-01-01T00:00:06Z"}`,
		`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"E","tool_use_id":"late","logged_at":"2026-01-01T00:00:07Z"}`,
	} {
		log += l + "\n"
	}
	recs, _, _ := DecodeFile("hooks.jsonl", []byte(log))
	recs, _ = Prepare(recs)
	u := Unknown(recs)
	if !u["s\x00early"] || !u["s\x00late"] || u["s\x00inside"] || len(u) != 2 {
		t.Errorf("unknown = %v, want early and late", u)
	}
	if s := FailuresOnly(recs); len(s) != 0 {
		t.Errorf("failures-only sessions %v in a log that records a success", s)
	}
}

// TestPairWithoutIDs: old logs pair Pre and Post by order, tool and
// input; the ids are the same when the log is read again, grown.
func TestPairWithoutIDs(t *testing.T) {
	pre := `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"x"}}`
	post := `{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command": "x"}}`
	recs, _, _ := DecodeFile("hooks.jsonl", []byte(pre+"\n"+pre+"\n"+post+"\n"))
	recs, _ = Prepare(recs)
	if recs[0].ToolUseID == "" || recs[0].ToolUseID == recs[1].ToolUseID || recs[2].ToolUseID != recs[0].ToolUseID {
		t.Fatalf("ids %q %q %q: the post should take the first Pre's", recs[0].ToolUseID, recs[1].ToolUseID, recs[2].ToolUseID)
	}
	grown, _, _ := DecodeFile("hooks.jsonl", []byte(pre+"\n"+pre+"\n"+post+"\n"+post+"\n"))
	grown, _ = Prepare(grown)
	for i := range recs {
		if grown[i].Key != recs[i].Key {
			t.Errorf("record %d: key changed when the log grew", i)
		}
	}
	if grown[3].ToolUseID != recs[1].ToolUseID {
		t.Error("the second post did not take the second Pre's id")
	}
}

// TestRepeatedEventsAreNotDuplicates: events alike in every byte but at
// different places of a log are different events (a Stop per turn, a
// Notification per wait), with times or without; the same element of the
// same file read twice is one event (issue 33 item 11).
func TestRepeatedEventsAreNotDuplicates(t *testing.T) {
	stop := `{"session_id":"s","cwd":"/p","hook_event_name":"Stop","stop_hook_active":false}`
	prompt := `{"session_id":"s","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"go on"}`
	untimed := strings.Repeat(prompt+"\n"+stop+"\n", 3)
	recs, _, _ := DecodeFile("logs/hooks.jsonl", []byte(untimed))
	got, dups := Prepare(recs)
	if dups != 0 || len(got) != 6 {
		t.Fatalf("untimed: %d kept, %d duplicates; want 6 and 0", len(got), dups)
	}
	timed := `[` + strings.Replace(stop, `{`, `{"logged_at":"2026-01-01T00:00:01Z",`, 1) + `,` +
		strings.Replace(stop, `{`, `{"logged_at":"2026-01-01T00:00:09Z",`, 1) + `]`
	recs, _, _ = DecodeFile("logs/stop.json", []byte(timed))
	if got, dups := Prepare(recs); dups != 0 || len(got) != 2 {
		t.Fatalf("timed: %d kept, %d duplicates; want 2 and 0", len(got), dups)
	}
	// The same file given twice, and the same file under another
	// directory (a copy of the logs): the same events.
	a, _, _ := DecodeFile("logs/stop.json", []byte(timed))
	b, _, _ := DecodeFile("logs/stop.json", []byte(timed))
	c, _, _ := DecodeFile("/backup/logs/stop.json", []byte(timed))
	if got, dups := Prepare(append(append(a, b...), c...)); dups != 4 || len(got) != 2 {
		t.Errorf("the same file three times: %d kept, %d duplicates; want 2 and 4", len(got), dups)
	}
	// Keys do not depend on the directory the file was read from, so a
	// second import from elsewhere finds them stored.
	x, _ := Prepare(a)
	y, _ := Prepare(c)
	if x[0].Key != y[0].Key || x[1].Key != y[1].Key || x[0].Key == x[1].Key {
		t.Errorf("keys %s %s / %s %s", x[0].Key, x[1].Key, y[0].Key, y[1].Key)
	}
}
