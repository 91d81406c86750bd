//go:build !(linux || darwin || freebsd)

package doctor

// freeSpace: not measured on this platform.
func freeSpace(string) (int64, bool) { return 0, false }
