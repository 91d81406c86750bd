package hooks

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/prompt"
)

// Instruction files: what Claude Code loads at the start of a session
// (docs/events.md, "Instruction files"). At SessionStart the hook lists
// them as found on disk, with each file's hash (prompt.ScanInstructions),
// so that the session's base prompt (_session) has a version that names
// every file it is made of; on InstructionsLoaded it hashes the one file
// the event names.

// instructionSet is sepa.instructions: the manifest and its version at
// SessionStart, one file at InstructionsLoaded (no version).
type instructionSet struct {
	Version string                  `json:"version,omitempty"`
	Files   []event.InstructionFile `json:"files"`
}

// instructions fills sepa.instructions for SessionStart (the manifest) and
// InstructionsLoaded (the named file's hash).
func (f *facts) instructions(s *sepaObj, cwd string, opts Options) {
	switch f.event {
	case evSessionStart:
		if cwd == "" || f.agentType != "" {
			return
		}
		version, files := prompt.ScanInstructions(cwd, claudeDir(opts))
		if files == nil {
			files = []event.InstructionFile{}
		}
		s.Instructions = &instructionSet{Version: version, Files: files}
	case evInstructionsLoaded:
		p := f.filePath
		if !filepath.IsAbs(p) || !strings.HasSuffix(p, ".md") {
			return
		}
		f := event.InstructionFile{Path: p}
		if project := prompt.ProjectOf(cwd); project != "" && prompt.LinksOut(p, project) {
			f.Link = prompt.LinkOutside
		} else {
			f.Hash = prompt.HashFile(p)
		}
		s.Instructions = &instructionSet{Files: []event.InstructionFile{f}}
	}
}

// claudeDir is the user's Claude Code configuration directory for opts.
func claudeDir(opts Options) string {
	if opts.ClaudeDir != "" {
		return opts.ClaudeDir
	}
	home := opts.UserHome
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return prompt.ConfigDirFrom(os.Getenv, home)
}
