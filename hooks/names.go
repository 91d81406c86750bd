package hooks

import "github.com/sepad/sepad/event"

// The event names and the schema version the hook writes are package
// event's, the collector's own.
const (
	schemaVersion = event.SchemaVersion

	evPreToolUse          = event.PreToolUse
	evPostToolUse         = event.PostToolUse
	evPostToolUseFailure  = event.PostToolUseFailure
	evUserPromptSubmit    = event.UserPromptSubmit
	evUserPromptExpansion = event.UserPromptExpansion
	evSubagentStart       = event.SubagentStart
	evSessionStart        = event.SessionStart
	evInstructionsLoaded  = event.InstructionsLoaded
	evPreSkillShell       = event.PreSkillShellCommand
	evQuarantined         = event.Quarantined
)

// slashCommand is event.SlashCommand: the command name of a prompt that
// starts with "/name", after leading blanks.
var slashCommand = event.SlashCommand
