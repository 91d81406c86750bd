package execution

import (
	"maps"

	"github.com/sepad/sepad/event"
)

// The session's base prompt (_session) is every instruction file Claude
// Code loaded at the start of the session (docs/executions.md, "Identity
// of a skill"): the hook lists them with their hashes at SessionStart
// (sepa.instructions), and that manifest's version is the version of
// every _session execution of the session until the next SessionStart
// (a resume, a /clear, a compaction: Claude Code reads the files again
// then). Files loaded later in a turn (nested_traversal, path_glob_match)
// are recorded with the execution they joined and change no version.

// InstructionFile is one instruction file of a manifest.
type InstructionFile = event.InstructionFile

// Manifest is the instruction set of a session: its version and files.
type Manifest struct {
	Version string            `json:"version"`
	Files   []InstructionFile `json:"files,omitempty"`
}

// LoadedFile is an instruction file loaded while an execution ran.
type LoadedFile struct {
	Path string `json:"path"`
	Hash string `json:"hash,omitempty"`
	// Reason is the InstructionsLoaded load_reason: nested_traversal,
	// path_glob_match, or session_start/include/compact for a file the
	// SessionStart manifest did not hold (or held with another hash).
	Reason string `json:"reason,omitempty"`
}

// sessionStart takes the session's manifest from a SessionStart the hook
// enriched. A SessionStart without one (raw payloads, an older hook)
// leaves the version to the store, as before.
func (g *Grouper) sessionStart(t *thread, ev *event.Event) {
	if t.Agent == "" && ev.Sepa != nil && ev.Sepa.PluginPrompts != nil {
		switch ev.Source {
		case "startup", "resume", "":
			// A new process loads the plugins afresh.
			t.PluginPrompts = maps.Clone(ev.Sepa.PluginPrompts)
		default:
			// clear, compact: the same process, the plugins it loaded.
			if t.PluginPrompts == nil {
				t.PluginPrompts = map[string]string{}
			}
			for p, v := range ev.Sepa.PluginPrompts {
				if _, ok := t.PluginPrompts[p]; !ok {
					t.PluginPrompts[p] = v
				}
			}
		}
	}
	if t.Agent != "" || ev.Sepa == nil || ev.Sepa.Instructions == nil || ev.Sepa.Instructions.Version == "" {
		return
	}
	in := ev.Sepa.Instructions
	t.Instructions = &Manifest{Version: in.Version, Files: append([]InstructionFile(nil), in.Files...)}
}

// instructionsLoaded records an instruction file loaded after the start
// with the execution it joined (the open part, else the one held from the
// last turn, else the next part to start). A file loaded at the start is
// recorded only when the manifest does not hold it with the same hash, so
// a scan that missed what Claude Code loaded shows.
func (g *Grouper) instructionsLoaded(t *thread, ev *event.Event) {
	if ev.FilePath == "" {
		return
	}
	f := LoadedFile{Path: ev.FilePath, Reason: ev.LoadReason}
	if ev.Sepa != nil && ev.Sepa.Instructions != nil && len(ev.Sepa.Instructions.Files) == 1 {
		f.Hash = ev.Sepa.Instructions.Files[0].Hash
	}
	switch ev.LoadReason {
	case "session_start", "include", "compact":
		if t.Instructions != nil && t.Instructions.holds(f) {
			return
		}
	}
	switch {
	case t.current() != nil:
		t.current().Loaded = append(t.current().Loaded, f)
	case t.Pending != nil:
		t.Pending.Loaded = append(t.Pending.Loaded, f)
	default:
		t.Loaded = append(t.Loaded, f)
	}
}

// holds reports whether the manifest lists f's path with f's hash (or f
// has no hash to compare).
func (m *Manifest) holds(f LoadedFile) bool {
	for _, x := range m.Files {
		if x.Path == f.Path {
			return f.Hash == "" || x.Hash == f.Hash
		}
	}
	return false
}

// sessionVersion gives a new _session part the session's manifest, and a
// new part the files loaded while no part was open.
func (g *Grouper) sessionVersion(t *thread, x *Execution) {
	if len(t.Loaded) > 0 {
		x.Loaded, t.Loaded = t.Loaded, nil
	}
	if x.Kind != "session" || t.Instructions == nil {
		return
	}
	x.SkillVersion = t.Instructions.Version
	x.Instructions = t.Instructions.Files
}
