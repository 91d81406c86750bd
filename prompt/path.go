package prompt

import (
	"path/filepath"
	"strings"
)

// within reports whether p lies strictly inside root (both cleaned; a
// path equal to root, or one reached by "..", is not inside).
func within(root, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	if err != nil || filepath.IsAbs(rel) || rel == "." {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
