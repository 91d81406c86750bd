package record

import (
	"strings"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/execution"
)

// SourceManifest is the Source of a _session version recorded from a
// session's manifest of instruction files (docs/executions.md).
const SourceManifest = "session manifest"

// ManifestFiles returns the files a _session version's manifest lists;
// false when the version is not a session manifest. A version a mutator
// proposed (or a rollback wrote) for CLAUDE.md is recorded as the
// manifest it makes (mutation, session_propose.go); one written before
// that holds CLAUDE.md's text, which does not parse as a manifest.
func ManifestFiles(v *Version) ([]execution.InstructionFile, bool) {
	if v == nil || !v.ContentKnown || v.Source != SourceManifest && !strings.HasSuffix(v.SkillKey, "#"+execution.SessionSkill) {
		return nil, false
	}
	return event.ParseManifest(string(v.Content))
}

// Manifest returns the text and version of the manifest of files (sorted
// by path, as a session's is): what a _session version holds.
func Manifest(files []execution.InstructionFile) (text, version string) {
	return event.ManifestText(files), event.ManifestVersion(files)
}
