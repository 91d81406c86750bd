//go:build !windows

package collector

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// openNonblock makes the open of a FIFO return at once instead of waiting
// for a writer; regular files read as usual with it.
const openNonblock = syscall.O_NONBLOCK

// statID is the (device, inode) of the file fi describes.
func statID(_ string, fi os.FileInfo) fileID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}
	}
	return fileID{}
}

// lockFile takes an exclusive flock on f, polling for at most wait: the
// lock the hook takes on a fallback file while it appends to it.
func lockFile(f *os.File, wait time.Duration) (unlock func(), err error) {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR {
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("lock %s: %w", f.Name(), errLockBusy)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// unlinked reports whether the open file f has no name left anywhere
// (deleted): only then is a followed file that no watched name reaches
// forgotten. ok is false when it cannot tell.
func unlinked(f *os.File) (gone, ok bool) {
	fi, err := f.Stat()
	if err != nil {
		return false, false
	}
	st, isSys := fi.Sys().(*syscall.Stat_t)
	if !isSys {
		return false, false
	}
	return st.Nlink == 0, true
}
