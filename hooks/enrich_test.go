package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/internal/jsontest"
)

var t0 = time.Date(2026, 11, 20, 9, 0, 0, 123456789, time.UTC)

// line is an enriched line decoded for assertions.
type line struct {
	raw  []byte
	ev   event.Event
	err  error
	top  map[string]any
	keys []string
	sepa *event.Sepa
	rep  []string
}

func decode(t *testing.T, b []byte) line {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("not valid JSON: %q", trunc(b))
	}
	if !utf8.Valid(b) {
		t.Fatalf("not valid UTF-8: %q", trunc(b))
	}
	if bytes.ContainsAny(b, "\n\r") {
		t.Fatalf("raw newline in line: %q", trunc(b))
	}
	l := line{raw: b}
	l.ev, l.err = event.ParseLine(b)
	if err := json.Unmarshal(b, &l.top); err != nil {
		t.Fatal(err)
	}
	var s struct {
		Sepa struct {
			event.Sepa
			Repaired []string `json:"repaired"`
		} `json:"sepa"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	l.sepa, l.rep = &s.Sepa.Sepa, s.Sepa.Repaired
	l.keys = topKeyOrder(t, b)
	return l
}

func topKeyOrder(t *testing.T, b []byte) []string {
	t.Helper()
	keys, err := jsontest.TopKeys(b)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func trunc(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:300:300], "..."...)
	}
	return b
}

func noFiles() Options { return Options{NoFiles: true} }

func TestEnrichKeepsPayload(t *testing.T) {
	in := `{ "session_id" : "s1",
	  "transcript_path": "/t.jsonl", "zeta": [1, 2.5e3, -0, true, false, null, {"k": "v"}],
	  "hook_event_name": "PostToolUse", "unicode": "é 😀 \u00e9 \ud83d\ude00 \" \\ \/ \n",
	  "alpha": {"nested": {"deep": []}}, "empty": {} }`
	out := Enrich([]byte(in), t0, noFiles())
	l := decode(t, out)
	if l.err != nil {
		t.Fatalf("ParseLine: %v", l.err)
	}
	want := []string{"session_id", "transcript_path", "zeta", "hook_event_name", "unicode", "alpha", "empty", "sepa"}
	if !reflect.DeepEqual(l.keys, want) {
		t.Fatalf("key order %v, want %v", l.keys, want)
	}
	var orig map[string]any
	json.Unmarshal([]byte(in), &orig)
	delete(l.top, "sepa")
	if !reflect.DeepEqual(orig, l.top) {
		t.Fatalf("values changed:\n in  %v\n out %v", orig, l.top)
	}
	if l.sepa.V != event.SchemaVersion || !l.sepa.TS.Equal(t0) {
		t.Fatalf("sepa = %+v", l.sepa)
	}
	if !bytes.Contains(out, []byte(`"ts":"2026-11-20T09:00:00.123456789Z"`)) {
		t.Fatalf("ts not RFC 3339 nano UTC: %s", out)
	}
	if len(l.sepa.Cut) != 0 || len(l.rep) != 0 {
		t.Fatalf("unexpected cut/repair: %+v %v", l.sepa.Cut, l.rep)
	}
	// Escapes are kept as written, not re-encoded.
	if !bytes.Contains(out, []byte(`\u00e9 \ud83d\ude00 \" \\ \/ \n`)) {
		t.Fatalf("escapes rewritten: %s", out)
	}
}

func TestEnrichRepairs(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // decoded value of "x"
		repair   string
	}{
		{"invalid utf8", "{\"x\":\"a\xffb\xc3\"}", "a\uFFFDb\uFFFD", "utf8"},
		{"utf8 encoded surrogate", "{\"x\":\"\xed\xa0\x80\"}", "\uFFFD\uFFFD\uFFFD", "utf8"},
		{"raw newline and tab", "{\"x\":\"a\nb\tc\"}", "a\nb\tc", "control"},
		{"raw NUL in string", "{\"x\":\"a\x00b\"}", "a\x00b", "nul"},
		{"NUL between tokens", "{\"x\":\"ab\"}\x00\x00", "ab", "nul"},
		{"lone high surrogate", `{"x":"a\ud800b"}`, "a\uFFFDb", "surrogate"},
		{"lone low surrogate", `{"x":"a\udc00b"}`, "a\uFFFDb", "surrogate"},
		{"high then high", `{"x":"\ud800\ud800\udc00"}`, "\uFFFD\U00010000", "surrogate"},
		{"high at end", `{"x":"\ud83d"}`, "\uFFFD", "surrogate"},
		{"unknown escape", `{"x":"a\qb"}`, `a\qb`, "escape"},
		{"bom", "\xef\xbb\xbf{\"x\":\"y\"}", "y", "bom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in[:len(tc.in)-1] + `,"session_id":"s","hook_event_name":"Stop"}`
			if tc.name == "NUL between tokens" {
				in = "{\"x\":\"ab\",\"session_id\":\"s\",\"hook_event_name\":\"Stop\"}\x00\x00"
			}
			l := decode(t, Enrich([]byte(in), t0, noFiles()))
			if l.err != nil {
				t.Fatalf("ParseLine: %v (%s)", l.err, l.raw)
			}
			if got := l.top["x"]; got != tc.want {
				t.Fatalf("x = %q, want %q", got, tc.want)
			}
			if !slices.Contains(l.rep, tc.repair) {
				t.Fatalf("repaired = %v, want %q", l.rep, tc.repair)
			}
		})
	}
}

func TestEnrichQuarantines(t *testing.T) {
	for _, tc := range []struct {
		name, in, reason string
	}{
		{"empty", "", "empty payload"},
		{"blank", " \n\t", "empty payload"},
		{"not json", "hello world", "not a JSON object"},
		{"array", `[{"session_id":"s"}]`, "not a JSON object"},
		{"truncated", `{"session_id":"s","hook_event_name":"Stop","x":"abc`, "unexpected end of payload"},
		{"trailing data", `{"session_id":"s","hook_event_name":"Stop"} {"b":1}`, "data after the JSON object"},
		{"missing comma", `{"session_id":"s" "hook_event_name":"Stop"}`, "after object key:value pair"},
		{"trailing comma", `{"session_id":"s",}`, "looking for beginning of object key string"},
		{"bad number", `{"session_id":"s","n":01}`, "after object key:value pair"},
		{"bad literal", `{"session_id":"s","n":tru}`, "in literal true"},
		{"missing session", `{"hook_event_name":"Stop"}`, "missing session_id"},
		{"empty object", `{}`, "missing session_id"},
		{"missing event", `{"session_id":"s"}`, "missing hook_event_name"},
		{"wrong type", `{"session_id":"s","hook_event_name":"Stop","cwd":5}`, "invalid JSON"},
		{"too deep", `{"session_id":"s","hook_event_name":"Stop","x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}`, "nesting deeper than 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := decode(t, Enrich([]byte(tc.in), t0, noFiles()))
			if l.ev.HookEvent != event.Quarantined || l.err == nil {
				t.Fatalf("not quarantined: %s", l.raw)
			}
			if !strings.Contains(l.sepa.Quarantine, tc.reason) {
				t.Fatalf("reason %q, want it to contain %q", l.sepa.Quarantine, tc.reason)
			}
			if len(tc.in) < DefaultMaxField && l.sepa.Raw != tc.in {
				t.Fatalf("raw %q, want the payload %q", l.sepa.Raw, tc.in)
			}
			if !l.sepa.TS.Equal(t0) || l.sepa.V != 1 {
				t.Fatalf("sepa %+v", l.sepa)
			}
		})
	}
}

func TestEnrichQuarantineInvalidUTF8Raw(t *testing.T) {
	in := []byte("not json \xff\xfe \x00 end")
	l := decode(t, Enrich(in, t0, noFiles()))
	if l.ev.HookEvent != event.Quarantined || l.sepa.Raw != "not json \uFFFD\uFFFD \x00 end" {
		t.Fatalf("raw %q", l.sepa.Raw)
	}
}

func TestEnrichQuarantineBoundsRaw(t *testing.T) {
	in := bytes.Repeat([]byte("x\xff"), 100_000) // 200 KB of not-JSON
	out := Enrich(in, t0, noFiles())
	l := decode(t, out)
	if len(out) > DefaultMaxField+1024 {
		t.Fatalf("quarantine line is %d bytes", len(out))
	}
	sum := sha256.Sum256(in)
	if len(l.sepa.Cut) != 1 || l.sepa.Cut[0].Field != "/sepa/raw" || l.sepa.Cut[0].Len != len(in) || l.sepa.Cut[0].SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("cut = %+v", l.sepa.Cut)
	}
	if !strings.HasPrefix(l.sepa.Raw, "x\uFFFDx") || !strings.HasSuffix(l.sepa.Raw, "x\uFFFD") || !strings.Contains(l.sepa.Raw, CutMarker) {
		t.Fatalf("raw head/tail wrong: %q...", l.sepa.Raw[:40])
	}
}

func TestEnrichRenamesIncomingSepa(t *testing.T) {
	in := `{"session_id":"s","hook_event_name":"Stop","sepa":{"v":99,"ts":"x"}}`
	l := decode(t, Enrich([]byte(in), t0, noFiles()))
	if l.err != nil {
		t.Fatal(l.err)
	}
	if l.top["sepa_input"] == nil || l.sepa.V != 1 {
		t.Fatalf("incoming sepa not kept aside: %s", l.raw)
	}
}

func TestEnrichCutsString(t *testing.T) {
	// A big Read response: content with multi-byte runes and escapes, so
	// the cut boundaries must respect both.
	var content strings.Builder
	for content.Len() < 300_000 {
		content.WriteString("line é😀 \"q\" \t\\ \u2028 end\n")
	}
	p := map[string]any{
		"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Read",
		"tool_input":    map[string]any{"file_path": "/x"},
		"tool_response": map[string]any{"type": "text", "file": map[string]any{"filePath": "/x", "content": content.String(), "numLines": 7}},
	}
	in, _ := json.Marshal(p)
	out := Enrich(in, t0, noFiles())
	l := decode(t, out)
	if l.err != nil {
		t.Fatal(l.err)
	}
	sum := sha256.Sum256([]byte(content.String()))
	want := event.Cut{Field: "/tool_response/file/content", Len: content.Len(), SHA256: hex.EncodeToString(sum[:])}
	if len(l.sepa.Cut) != 1 || l.sepa.Cut[0] != want {
		t.Fatalf("cut = %+v, want %+v", l.sepa.Cut, want)
	}
	got := l.top["tool_response"].(map[string]any)["file"].(map[string]any)
	c := got["content"].(string)
	if !strings.HasPrefix(c, "line é😀") || !strings.HasSuffix(c, "end\n") || !strings.Contains(c, CutMarker) {
		t.Fatalf("head/tail not kept: %q ... %q", c[:20], c[len(c)-20:])
	}
	if !strings.HasPrefix(content.String(), c[:strings.Index(c, CutMarker)]) || !strings.HasSuffix(content.String(), c[strings.Index(c, CutMarker)+len(CutMarker):]) {
		t.Fatal("head or tail is not a prefix/suffix of the original")
	}
	if got["numLines"] != 7.0 || got["filePath"] != "/x" {
		t.Fatalf("siblings of the cut field changed: %v", got)
	}
	if len(out) > DefaultMaxField+2048 {
		t.Fatalf("line is %d bytes", len(out))
	}
}

func TestEnrichCutsContainers(t *testing.T) {
	names := make([]string, 20_000)
	for i := range names {
		names[i] = strings.Repeat("f", 20) + string(rune('a'+i%26))
	}
	big := strings.Repeat("z", 100_000)
	p := map[string]any{
		"session_id": "s", "hook_event_name": "PostToolUse", "tool_name": "Glob",
		"tool_response": map[string]any{"filenames": names, "numFiles": len(names)},
		"tool_input":    map[string]any{"list": []any{big, "small"}},
		"n":             json.Number(strings.Repeat("9", 70_000)),
		"a~b/c":         big,
	}
	in, _ := json.Marshal(p)
	l := decode(t, Enrich(in, t0, noFiles()))
	if l.err != nil {
		t.Fatal(l.err)
	}
	cuts := map[string]event.Cut{}
	for _, c := range l.sepa.Cut {
		cuts[c.Field] = c
	}
	// The filenames array keeps its head and tail elements.
	fn := l.top["tool_response"].(map[string]any)["filenames"].([]any)
	if len(fn) == 0 || len(fn) >= len(names) || fn[0] != names[0] || fn[len(fn)-1] != names[len(names)-1] {
		t.Fatalf("filenames: %d kept, first %v last %v", len(fn), fn[0], fn[len(fn)-1])
	}
	raw, _ := json.Marshal(names)
	sum := sha256.Sum256(raw)
	if c := cuts["/tool_response/filenames"]; c.Len != len(raw) || c.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("filenames cut = %+v (want len %d)", c, len(raw))
	}
	// A cut string inside the list is recorded with its own pointer.
	if _, ok := cuts["/tool_input/list/0"]; !ok {
		t.Fatalf("no record for /tool_input/list/0: %v", l.sepa.Cut)
	}
	// Keys with ~ and / are escaped as RFC 6901 says.
	if _, ok := cuts["/a~0b~1c"]; !ok {
		t.Fatalf("no record for /a~0b~1c: %v", l.sepa.Cut)
	}
	// A huge number becomes a cut string.
	if s, ok := l.top["n"].(string); !ok || !strings.HasPrefix(s, "999") || cuts["/n"].Len != 70_000 {
		t.Fatalf("n = %T, cut %+v", l.top["n"], cuts["/n"])
	}
}

func TestEnrichNestedCuts(t *testing.T) {
	// An array of many big strings: each string is cut, then the array,
	// which keeps its first and last element. Records of the dropped
	// elements go; the last element's record follows its new index.
	arr := make([]string, 40)
	for i := range arr {
		arr[i] = strings.Repeat(string(rune('a'+i%26)), 70_000)
	}
	in, _ := json.Marshal(map[string]any{"session_id": "s", "hook_event_name": "Stop", "arr": arr})
	l := decode(t, Enrich(in, t0, Options{NoFiles: true, MaxField: 1000}))
	if l.err != nil {
		t.Fatal(l.err)
	}
	var fields []string
	for _, c := range l.sepa.Cut {
		fields = append(fields, c.Field)
	}
	if want := []string{"/arr/0", "/arr/1", "/arr"}; !reflect.DeepEqual(fields, want) {
		t.Fatalf("cut fields %v, want %v", fields, want)
	}
	got := l.top["arr"].([]any)
	if len(got) != 2 || !strings.HasPrefix(got[0].(string), "aaa") || !strings.HasPrefix(got[1].(string), "nnn") {
		t.Fatalf("arr kept %d elements: %.10v", len(got), got)
	}
	sum := sha256.Sum256([]byte(arr[39]))
	if l.sepa.Cut[1].SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatal("the moved record does not describe the last element")
	}
}

func TestEnrichTopLevelNeverDropped(t *testing.T) {
	p := map[string]any{"session_id": "s", "hook_event_name": "Stop"}
	for i := 0; i < 50; i++ {
		p[string(rune('a'+i%26))+strings.Repeat("k", i)] = strings.Repeat("v", 900)
	}
	in, _ := json.Marshal(p)
	l := decode(t, Enrich(in, t0, Options{NoFiles: true, MaxField: 1000}))
	if l.err != nil || len(l.top) != len(p)+1 {
		t.Fatalf("top-level members lost: %d of %d (%v)", len(l.top)-1, len(p), l.err)
	}
}

func TestShortenBoundaries(t *testing.T) {
	for _, content := range []string{
		strings.Repeat("\U0001F600", 100),
		strings.Repeat("\n", 300),
		strings.Repeat("\x1b[0m", 100),
		strings.Repeat("a\u00e9", 100),
		strings.Repeat("\xff", 300), // invalid UTF-8: \ufffd, six bytes each
	} {
		cut := shorten(content, 256)
		out := appendJSON(nil, cut)
		var s string
		if err := json.Unmarshal(out, &s); err != nil || !utf8.ValidString(s) {
			t.Fatalf("cut %q -> %q: %v", content[:20], out, err)
		}
		if len(out) > 256 {
			t.Fatalf("cut to %d bytes, max 256", len(out))
		}
		head, tail, ok := strings.Cut(cut, CutMarker)
		if !ok || head == "" || tail == "" || !strings.HasPrefix(content, head) || !strings.HasSuffix(content, tail) {
			t.Fatalf("head %q tail %q of %q", head, tail, content[:20])
		}
		if utf8.ValidString(content) && (!utf8.ValidString(head) || !utf8.ValidString(tail)) {
			t.Fatalf("a UTF-8 sequence split: %q %q", head, tail)
		}
	}
}
