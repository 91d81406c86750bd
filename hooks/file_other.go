//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package hooks

import (
	"errors"
	"io"
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

const oRead = os.O_RDONLY

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

func getenv(key string) string { return os.Getenv(key) }

func userHome() string { h, _ := os.UserHomeDir(); return h }

func tempDir() string { return os.TempDir() }

func tempDirFrom(func(string) string) string { return os.TempDir() }

func getuid() int { return os.Getuid() }

func isNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }

func statRegular(path string) (int64, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	return fi.Size(), true
}

func lexists(path string) bool { _, err := os.Lstat(path); return err == nil }

func (f file) read(p []byte) (int, error) { return f.f.Read(p) }

func (f file) readAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func readDirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}

func mkdirAll(path string, perm uint32) error { return os.MkdirAll(path, os.FileMode(perm)) }

// Stdin and Stderr are the process's standard input and error.
func Stdin() io.Reader  { return os.Stdin }
func Stderr() io.Writer { return os.Stderr }

func (f file) regular() bool {
	fi, err := f.f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

// isDir reports whether path is (or links to) a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// subdirs returns the names of dir's subdirectories, sorted, not counting
// symbolic links, and whether dir has an entry named .claude. buf is
// unused here.
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

const oAppendCreateNoFollow = oAppendCreate

// statDevIno: no runtime fallback file on this platform (see
// RuntimeFallbackPaths).
func statDevIno(string) (dev, ino uint64, ok bool) { return 0, 0, false }

func privateDir(string) bool { return false }
