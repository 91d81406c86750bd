//go:build linux || darwin || freebsd

package doctor

import "syscall"

// freeSpace returns the bytes an unprivileged user may still write on the
// file system holding path.
func freeSpace(path string) (int64, bool) {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return 0, false
	}
	return int64(uint64(st.Bavail) * uint64(st.Bsize)), true
}
