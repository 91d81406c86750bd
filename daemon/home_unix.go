//go:build unix

package daemon

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// checkOwner refuses a state directory owned by another user (root may
// use any).
func checkOwner(home string, fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Geteuid(); uid != 0 && int(st.Uid) != uid {
		return fmt.Errorf("state directory %s belongs to uid %d, not to you (uid %d): %w", home, st.Uid, uid, errUnsafeHome)
	}
	return nil
}
