package event

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// ManifestText is what a _session version holds: one line "<path>  <hash>"
// per instruction file, in the manifest's order (sorted by path). The hook
// writes the manifest (sepa.instructions) and its version, the store keeps
// this text as the version's content.
func ManifestText(files []InstructionFile) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.Path)
		b.WriteString("  ")
		b.WriteString(f.Hash)
		b.WriteByte('\n')
	}
	return b.String()
}

// ManifestVersion is the version of a manifest, the _session version: the
// first 12 hex digits of the sha256 of its ManifestText.
func ManifestVersion(files []InstructionFile) string {
	h := sha256.Sum256([]byte(ManifestText(files)))
	return hex.EncodeToString(h[:6])
}

// ParseManifest reads a ManifestText back ("path  hash" lines); false when
// text is not one.
func ParseManifest(text string) ([]InstructionFile, bool) {
	var out []InstructionFile
	for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		i := strings.LastIndex(line, "  ")
		if i <= 0 {
			return nil, false
		}
		out = append(out, InstructionFile{Path: line[:i], Hash: line[i+2:]})
	}
	return out, len(out) > 0
}
