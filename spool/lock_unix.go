//go:build unix

package spool

import (
	"errors"
	"os"
	"syscall"
)

// oAppendCreateNoFollow opens a runtime fallback file for appending,
// refusing a symbolic link in its place.
const oAppendCreateNoFollow = oAppendCreate | syscall.O_NOFOLLOW

// tryLock takes an exclusive flock on f without waiting; busy reports
// that another process holds it.
func tryLock(f *os.File) (busy bool, err error) {
	conn, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var ferr error
	if err := conn.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return false, err
	}
	if errors.Is(ferr, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, ferr
}

func unlockFile(f *os.File) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := conn.Control(func(fd uintptr) { ferr = syscall.Flock(int(fd), syscall.LOCK_UN) }); err != nil {
		return err
	}
	return ferr
}

// statDevIno returns the device and inode number of path.
func statDevIno(path string) (dev, ino uint64, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// privateDir creates dir (0700) when missing and reports whether it is a
// directory, not a link, owned by this user and closed to everyone else:
// in a shared place such as /dev/shm another user may have made it first.
func privateDir(dir string) bool {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return false
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
