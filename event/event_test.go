package event

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseLineFormats(t *testing.T) {
	cases := []struct {
		name, line string
		format     Format
		hookEvent  string
		check      func(t *testing.T, ev Event)
	}{
		{"raw_post_tool_use", `{"session_id":"s1","transcript_path":"/t","cwd":"/p","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{"stdout":"a"},"tool_use_id":"toolu_1","duration_ms":12,"brand_new_field":{"x":1}}`,
			FormatHook, PostToolUse, func(t *testing.T, ev Event) {
				if ev.ToolName != "Bash" || ev.ToolUseID != "toolu_1" || !ev.HasDuration || ev.DurationMS != 12 || ev.Cwd != "/p" {
					t.Errorf("%+v", ev)
				}
			}},
		{"raw_failure", `{"session_id":"s1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"t","error":"Exit code 1\nboom","is_interrupt":false}`,
			FormatHook, PostToolUseFailure, func(t *testing.T, ev Event) {
				if !strings.HasPrefix(ev.Error, "Exit code 1") || ev.IsInterrupt {
					t.Errorf("%+v", ev)
				}
			}},
		{"raw_interrupt", `{"session_id":"s1","hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"Interrupted","is_interrupt":true}`,
			FormatHook, PostToolUseFailure, func(t *testing.T, ev Event) {
				if !ev.IsInterrupt {
					t.Error("is_interrupt lost")
				}
			}},
		{"error_object_kept_as_text", `{"session_id":"s1","hook_event_name":"StopFailure","error":{"type":"rate_limit"}}`,
			FormatHook, StopFailure, func(t *testing.T, ev Event) {
				if ev.Error != `{"type":"rate_limit"}` {
					t.Errorf("error = %q", ev.Error)
				}
			}},
		{"stop_with_message", `{"session_id":"s1","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`,
			FormatHook, Stop, func(t *testing.T, ev Event) {
				if ev.LastMessage != "done" {
					t.Errorf("%q", ev.LastMessage)
				}
			}},
		{"subagent", `{"session_id":"s1","hook_event_name":"SubagentStop","agent_id":"a1","agent_type":"reviewer","last_assistant_message":"ok"}`,
			FormatHook, SubagentStop, func(t *testing.T, ev Event) {
				if ev.AgentID != "a1" || ev.AgentType != "reviewer" {
					t.Errorf("%+v", ev)
				}
			}},
		{"expansion", `{"session_id":"s1","hook_event_name":"UserPromptExpansion","expansion_type":"slash_command","command_name":"deploy","command_args":"x","prompt":"/deploy x"}`,
			FormatHook, UserPromptExpansion, func(t *testing.T, ev Event) {
				if n, ok := ev.SkillInvocation(); !ok || n != "deploy" {
					t.Errorf("invocation %q %v", n, ok)
				}
			}},
		{"duration_as_string", `{"session_id":"s1","hook_event_name":"PostToolUse","duration_ms":"15.5"}`,
			FormatHook, PostToolUse, func(t *testing.T, ev Event) {
				if !ev.HasDuration || ev.DurationMS != 15 {
					t.Errorf("duration %d %v", ev.DurationMS, ev.HasDuration)
				}
			}},
		{"enriched", `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Skill","tool_input":{"skill":"deploy"},"sepa":{"v":1,"ts":"2026-11-20T09:00:00.123456789Z","skill":"deploy","skill_path":"/p/.claude/skills/deploy/SKILL.md","skill_version":"0123456789ab","project":"/p"}}`,
			FormatEnriched, PreToolUse, func(t *testing.T, ev Event) {
				want := time.Date(2026, 11, 20, 9, 0, 0, 123456789, time.UTC)
				if !ev.Time.Equal(want) || ev.Sepa.SkillVersion != "0123456789ab" || ev.Sepa.Project != "/p" {
					t.Errorf("%+v %+v", ev, ev.Sepa)
				}
				if n, ok := ev.SkillInvocation(); !ok || n != "deploy" {
					t.Errorf("invocation %q", n)
				}
			}},
		{"legacy_ok", `{"ts":"2026-01-02T03:04:05Z","tool":"Bash","exit":"0","success":"true","version":"v2","session":"abc"}`,
			FormatLegacy, Legacy, func(t *testing.T, ev Event) {
				if ev.SessionID != "abc" || ev.ToolName != "Bash" || ev.Error != "" || ev.Legacy.Version != "v2" || ev.Time.Year() != 2026 {
					t.Errorf("%+v", ev)
				}
			}},
		{"legacy_failed_unix_ts", `{"ts":"1767323045","tool":"Bash","exit":"2","success":"false","version":"v2","session":"abc"}`,
			FormatLegacy, Legacy, func(t *testing.T, ev Event) {
				if ev.Error != "exit 2" || ev.Time.IsZero() {
					t.Errorf("%+v", ev)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, err := ParseLine([]byte(tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Format != tc.format || ev.HookEvent != tc.hookEvent {
				t.Fatalf("format %v event %q, want %v %q", ev.Format, ev.HookEvent, tc.format, tc.hookEvent)
			}
			tc.check(t, ev)
		})
	}
}

func TestParseLineErrors(t *testing.T) {
	cases := map[string]string{
		"empty":                      "empty line",
		"not json":                   "not a JSON object",
		"[1,2]":                      "not a JSON object",
		`{"session_id":`:             "invalid JSON",
		`{"hook_event_name":"Stop"}`: "missing session_id",
		`{"session_id":"s"}`:         "missing hook_event_name",
		`{"session_id":"s","hook_event_name":""}`:                                                       "missing hook_event_name",
		`{"session_id":"s","hook_event_name":"Stop","sepa":{"v":7}}`:                                    "newer than this sepad",
		`{"tool":"Bash","exit":"0"}`:                                                                    "legacy line without session",
		`{"tool":"Bash","exit":"0","session":"s","ts":"yesterday"}`:                                     "not a time",
		`{"hook_event_name":"Quarantined","sepa":{"v":1,"quarantine":"payload is not JSON","raw":"x"}}`: "quarantined by hook",
	}
	for line, want := range cases {
		in := line
		if line == "empty" {
			in = "   "
		}
		_, err := ParseLine([]byte(in))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLine(%q) = %v, want ErrMalformed containing %q", line, err, want)
		}
	}
}

func TestSlashCommand(t *testing.T) {
	cases := map[string]string{
		"/deploy staging": "deploy",
		"  /review":       "review",
		"/plugin:fmt x":   "plugin:fmt",
		"/ nothing":       "",
		"//double":        "",
		"/etc/hosts is?":  "",
		"deploy":          "",
		"":                "",
	}
	for in, want := range cases {
		got, ok := SlashCommand(in)
		if got != want || ok != (want != "") {
			t.Errorf("SlashCommand(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
}

func TestFixturesParse(t *testing.T) {
	// Every line of the well-formed fixtures parses; garbage.jsonl has
	// exactly the malformed lines it was written with.
	files, _ := filepath.Glob("../testdata/sessions/*.jsonl")
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		bad := 0
		for sc.Scan() {
			if _, err := ParseLine(sc.Bytes()); err != nil {
				bad++
			}
		}
		fh.Close()
		want := 0
		if filepath.Base(f) == "garbage.jsonl" {
			want = 8
		}
		if bad != want {
			t.Errorf("%s: %d malformed lines, want %d", f, bad, want)
		}
	}
}

// TestSepaPluginFields: the hook's plugin fields are read on every event,
// not only on SessionStart (a hand-written decoder once skipped them).
func TestSepaPluginFields(t *testing.T) {
	line := `{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1,"ts":"2026-01-01T00:00:00Z","via":"http","plugin":"p","plugin_version":"1.2.0","plugin_prompts":{"skill:x":"/p/skills/x/SKILL.md"}}}`
	ev, err := ParseLine([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	s := ev.Sepa
	if s == nil || s.Via != "http" || s.Plugin != "p" || s.PluginVersion != "1.2.0" || s.PluginPrompts["skill:x"] != "/p/skills/x/SKILL.md" {
		t.Fatalf("plugin fields not read: %+v", s)
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_input":{"skill":"x"},"tool_name":"Skill"}`))
	f.Add([]byte(`{"ts":"1","tool":"a","exit":"1","session":"s"}`))
	f.Add([]byte(`{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"/x y","sepa":{"v":1,"ts":"2026-01-01T00:00:00Z"}}`))
	f.Add([]byte("\xff\xfe{"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := ParseLine(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error does not wrap ErrMalformed: %v", err)
			}
			return
		}
		if ev.SessionID == "" || ev.HookEvent == "" {
			t.Fatalf("accepted an event without session or name: %+v", ev)
		}
		ev.SkillInvocation()
	})
}

// An identity field longer than MaxIdentity would become a key of the
// store beyond bbolt's limit (issue 33 item 2): the line is refused,
// naming the field and its length, so the hook and the collector
// quarantine it instead of stopping on it.
func TestParseLineBoundsIdentities(t *testing.T) {
	big := strings.Repeat("x", MaxIdentity+1)
	fields := map[string]string{
		"session_id":      `{"session_id":"` + big + `","hook_event_name":"Stop"}`,
		"hook_event_name": `{"session_id":"s","hook_event_name":"` + big + `"}`,
		"cwd":             `{"session_id":"s","hook_event_name":"Stop","cwd":"/` + big + `"}`,
		"agent_id":        `{"session_id":"s","hook_event_name":"Stop","agent_id":"` + big + `"}`,
		"transcript_path": `{"session_id":"s","hook_event_name":"Stop","transcript_path":"/` + big + `"}`,
		"prompt_id":       `{"session_id":"s","hook_event_name":"Stop","prompt_id":"` + big + `"}`,
		"tool_use_id":     `{"session_id":"s","hook_event_name":"PreToolUse","tool_use_id":"` + big + `"}`,
		"sepa.skill_path": `{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1,"skill_path":"/` + big + `"}}`,
		"sepa.project":    `{"session_id":"s","hook_event_name":"Stop","sepa":{"v":1,"project":"/` + big + `"}}`,
		"session":         `{"ts":"2026-01-01T00:00:00Z","tool":"Bash","exit":"0","session":"` + big + `"}`,
	}
	for f, line := range fields {
		_, err := ParseLine([]byte(line))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), f+" of ") || !strings.Contains(err.Error(), "bytes") {
			t.Errorf("%s over the bound: %v", f, err)
		}
	}
	at := strings.Repeat("x", MaxIdentity)
	if _, err := ParseLine([]byte(`{"session_id":"` + at + `","hook_event_name":"Stop","cwd":"/` + at[1:] + `"}`)); err != nil {
		t.Errorf("fields at the bound: %v", err)
	}
}
