package hooks

// Names shared with package event, repeated here so that the hook does not
// import event (and with it encoding/json and strings, see text.go);
// names_test.go checks that each equals its counterpart in event.
const (
	schemaVersion = 1 // event.SchemaVersion

	evPreToolUse          = "PreToolUse"
	evPostToolUse         = "PostToolUse"
	evPostToolUseFailure  = "PostToolUseFailure"
	evUserPromptSubmit    = "UserPromptSubmit"
	evUserPromptExpansion = "UserPromptExpansion"
	evSubagentStart       = "SubagentStart"
	evQuarantined         = "Quarantined" // event.Quarantined
)

// slashCommand is event.SlashCommand: the command name of a prompt that
// starts with "/name", after leading blanks.
func slashCommand(prompt string) (string, bool) {
	p := prompt
	for len(p) > 0 && (p[0] == ' ' || p[0] == '\t' || p[0] == '\r' || p[0] == '\n') {
		p = p[1:]
	}
	if !hasPrefix(p, "/") {
		return "", false
	}
	p = p[1:]
	for i := 0; i < len(p); i++ {
		if c := p[i]; c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			p = p[:i]
			break
		}
	}
	if p == "" {
		return "", false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c == '-' || c == '_' || c == ':' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", false
		}
	}
	return p, true
}
