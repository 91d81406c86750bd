package hooks

import (
	"io"
	"os"
	"time"
)

// file is a file the hook opens: an *os.File with the few operations the
// spool, the lock and the readers need.
type file struct{ f *os.File }

// openFile opens path with flag (os.O_* values) and, when it creates the
// file, perm.
func openFile(path string, flag int, perm uint32) (file, error) {
	f, err := os.OpenFile(path, flag, os.FileMode(perm))
	return file{f}, err
}

// Flags for openFile (oRead and oAppendCreateNoFollow are per platform).
const (
	oAppendCreate = os.O_WRONLY | os.O_APPEND | os.O_CREATE
	oLockCreate   = os.O_RDWR | os.O_CREATE
	oTruncCreate  = os.O_WRONLY | os.O_TRUNC | os.O_CREATE
)

func (f file) write(b []byte) (int, error) { return f.f.Write(b) }

// read is Read without io.EOF: a zero count says the file ended.
func (f file) read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// readAt is ReadAt without io.EOF: a short count says where the file ends.
func (f file) readAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func (f file) size() (int64, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return -1, err
	}
	return fi.Size(), nil
}

func (f file) truncate(n int64) error { return f.f.Truncate(n) }

func (f file) close() error { return f.f.Close() }

// regular reports whether f is a regular file (checked on the open file,
// not the path, so a swapped path cannot fool it).
func (f file) regular() bool {
	fi, err := f.f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// lock takes the exclusive advisory lock on f, polling without blocking so
// the wait is bounded and no thread is left stuck in the kernel.
func (f file) lock(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for i := 0; ; i++ {
		busy, err := tryLock(f.f)
		if err != nil {
			return err
		}
		if !busy {
			return nil
		}
		now := time.Now()
		if !now.Before(deadline) {
			return ErrLockTimeout
		}
		time.Sleep(min(backoff(i), deadline.Sub(now)))
	}
}

func (f file) unlock() error { return unlock(f.f) }

func getenv(key string) string { return os.Getenv(key) }

func userHome() string { h, _ := os.UserHomeDir(); return h }

// statRegular reports whether path is (or links to) a regular file, and
// its size.
func statRegular(path string) (int64, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	return fi.Size(), true
}

// lexists reports whether path exists, without following a last link.
func lexists(path string) bool { _, err := os.Lstat(path); return err == nil }

// isDir reports whether path is (or links to) a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// readDirNames returns the names in dir, sorted.
func readDirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, nil
}

func mkdirAll(path string, perm uint32) error { return os.MkdirAll(path, os.FileMode(perm)) }

// subdirs returns the names of dir's subdirectories, sorted, not counting
// symbolic links, and whether dir has an entry named .claude (of any
// type). os.ReadDir takes the types from the listing where the system
// gives them (Linux's d_type), so a directory costs one listing.
func subdirs(dir string, _ []byte) (names []string, claude bool, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	for _, e := range ents {
		if e.Name() == ".claude" {
			claude = true
		}
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, claude, nil
}
