//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package hooks

import (
	"errors"
	"os"
	"time"
)

// file wraps an *os.File where the hook has no flock: LockSpool fails and
// Append writes every line to the fallback file in single O_APPEND writes.
type file struct{ f *os.File }

func openFile(path string, flag int, perm uint32) (file, error) {
	f, err := os.OpenFile(path, flag, os.FileMode(perm))
	return file{f}, err
}

const (
	oAppendCreate = os.O_WRONLY | os.O_APPEND | os.O_CREATE
	oLockCreate   = os.O_RDWR | os.O_CREATE
)

// errNoLock: this platform has no flock.
var errNoLock = errors.New("no advisory file lock on this platform")

func (f file) write(b []byte) (int, error) { return f.f.Write(b) }

func (f file) size() (int64, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return -1, err
	}
	return fi.Size(), nil
}

func (f file) truncate(n int64) error { return f.f.Truncate(n) }

func (f file) close() error { return f.f.Close() }

func (f file) lock(timeout time.Duration) error { return errNoLock }

func (f file) unlock() error { return nil }
