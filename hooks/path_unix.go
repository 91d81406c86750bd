//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import "path"

// Native path helpers. On these systems paths are slash-separated, so
// package path does the work of path/filepath, which the hook does not
// import (see text.go for why).

func joinPath(elem ...string) string { return path.Join(elem...) }

func dirPath(p string) string { return path.Dir(p) }

func isAbsPath(p string) bool { return hasPrefix(p, "/") }

func fromSlash(p string) string { return p }

// within reports whether p, cleaned, lies inside root, cleaned: lexically,
// strictly below it, as filepath.Rel would say (both absolute or both
// relative; a relative pair is compared as given).
func within(root, p string) bool {
	if isAbsPath(root) != isAbsPath(p) {
		return false
	}
	root, p = path.Clean(root), path.Clean(p)
	switch {
	case root == p:
		return false
	case root == "/":
		return true
	case root == ".":
		return p != ".." && !hasPrefix(p, "../")
	}
	return hasPrefix(p, root+"/")
}
