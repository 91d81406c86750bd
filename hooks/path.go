package hooks

import (
	"path/filepath"
	"strings"
)

func joinPath(elem ...string) string { return filepath.Join(elem...) }

func dirPath(p string) string { return filepath.Dir(p) }

func isAbsPath(p string) bool { return filepath.IsAbs(p) }

func fromSlash(p string) string { return filepath.FromSlash(p) }

func within(root, p string) bool {
	rel, err := filepath.Rel(filepath.Clean(root), filepath.Clean(p))
	if err != nil || filepath.IsAbs(rel) || rel == "." {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func evalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }
