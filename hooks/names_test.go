package hooks

import (
	"testing"

	"github.com/sepad/sepad/event"
)

func TestNamesMatchEvent(t *testing.T) {
	pairs := [][2]string{
		{evPreToolUse, event.PreToolUse},
		{evPostToolUse, event.PostToolUse},
		{evPostToolUseFailure, event.PostToolUseFailure},
		{evUserPromptSubmit, event.UserPromptSubmit},
		{evUserPromptExpansion, event.UserPromptExpansion},
		{evSubagentStart, event.SubagentStart},
		{evQuarantined, event.Quarantined},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("hooks has %q where event has %q", p[0], p[1])
		}
	}
	if schemaVersion != event.SchemaVersion {
		t.Errorf("schemaVersion %d, event.SchemaVersion %d", schemaVersion, event.SchemaVersion)
	}
}

func TestSlashCommandMatchesEvent(t *testing.T) {
	for _, p := range []string{"", "/", "/deploy", "  /deploy now", "\t/a:b.c-d_e x", "/dé", "/x/y", "deploy", " \n/x", "\u00a0/x", "/x\u00a0y"} {
		n1, ok1 := slashCommand(p)
		n2, ok2 := event.SlashCommand(p)
		if n1 != n2 || ok1 != ok2 {
			t.Errorf("%q: hooks (%q, %v), event (%q, %v)", p, n1, ok1, n2, ok2)
		}
	}
}

func FuzzSlashCommand(f *testing.F) {
	f.Add("/deploy now")
	f.Add(" \t/a:b")
	f.Add("/\u2000x")
	f.Fuzz(func(t *testing.T, p string) {
		n1, ok1 := slashCommand(p)
		n2, ok2 := event.SlashCommand(p)
		if n1 != n2 || ok1 != ok2 {
			t.Fatalf("%q: hooks (%q, %v), event (%q, %v)", p, n1, ok1, n2, ok2)
		}
	})
}
