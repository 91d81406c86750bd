package query

import (
	"slices"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// A version of the session's base prompt (CLAUDE.md) is a manifest: the
// instruction files its sessions loaded, each with its hash. What a
// person wants to read is the files' text, which the store keeps per
// file and hash when sepad could read it (a watched project's files, the
// user's Claude Code directory; docs/executions.md). show and diff give
// it file by file (Files), beside the manifest itself (Content, Hunks).

// FileText is one instruction file of a CLAUDE.md version.
type FileText struct {
	Path string `json:"path"`
	// Label names it for a person (FileLabel).
	Label string `json:"label"`
	Hash  string `json:"hash"`
	// ContentKnown is false when sepad never read the file while it
	// held this hash (outside the directories it watches, or edited
	// before it was read): Content is then "".
	ContentKnown bool   `json:"content_known"`
	Content      string `json:"content,omitempty"`
}

// FileDiff is one instruction file that differs between two CLAUDE.md
// versions: added (FromHash ""), removed (ToHash "") or changed. Hunks
// compare the two texts (an added or removed file against nothing); they
// are empty with Unknown set when either text was never seen.
type FileDiff struct {
	Path     string `json:"path"`
	Label    string `json:"label"`
	FromHash string `json:"from_hash,omitempty"`
	ToHash   string `json:"to_hash,omitempty"`
	Hunks    []Hunk `json:"hunks"`
	// Unknown says which side's text was never seen ("from", "to" or
	// "both"); "" when both are known.
	Unknown string `json:"unknown,omitempty"`
}

// manifestTexts returns the files of a session manifest version with
// their text, or nil when v is not one.
func manifestTexts(db *store.DB, project string, v *record.Version) ([]FileText, error) {
	files, ok := record.ManifestFiles(v)
	if !ok {
		return nil, nil
	}
	out := make([]FileText, len(files))
	for i, f := range files {
		b, known, err := db.InstructionFile(f.Path, f.Hash)
		if err != nil {
			return nil, err
		}
		out[i] = FileText{Path: f.Path, Label: FileLabel(project, f.Path), Hash: f.Hash, ContentKnown: known, Content: string(b)}
	}
	return out, nil
}

// fileDiffs compares two versions' files, path by path, in path order.
func fileDiffs(from, to []FileText) []FileDiff {
	byPath := map[string][2]*FileText{}
	var paths []string
	for i := range from {
		e := byPath[from[i].Path]
		e[0] = &from[i]
		byPath[from[i].Path] = e
		paths = append(paths, from[i].Path)
	}
	for i := range to {
		e, seen := byPath[to[i].Path]
		e[1] = &to[i]
		byPath[to[i].Path] = e
		if !seen {
			paths = append(paths, to[i].Path)
		}
	}
	slices.Sort(paths)
	out := []FileDiff{}
	for _, p := range paths {
		e := byPath[p]
		a, b := e[0], e[1]
		d := FileDiff{Path: p, Hunks: []Hunk{}}
		var at, bt string
		aKnown, bKnown := true, true
		if a != nil {
			d.Label, d.FromHash, at, aKnown = a.Label, a.Hash, a.Content, a.ContentKnown
		}
		if b != nil {
			d.Label, d.ToHash, bt, bKnown = b.Label, b.Hash, b.Content, b.ContentKnown
		}
		if d.FromHash == d.ToHash {
			continue
		}
		switch {
		case !aKnown && !bKnown:
			d.Unknown = "both"
		case !aKnown:
			d.Unknown = "from"
		case !bKnown:
			d.Unknown = "to"
		default:
			d.Hunks = Hunks(splitLines(at), splitLines(bt))
		}
		out = append(out, d)
	}
	return out
}
