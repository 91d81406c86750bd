//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"errors"
	"io"
	"slices"
	"syscall"
	"time"
)

// file is a file the hook opens with plain system calls. os.OpenFile would
// register it with the runtime's poller: on Linux that is an epoll
// instance, an eventfd and a dozen fcntl and epoll_ctl calls, which cost
// more than the hook's own work on every tool call, for regular files the
// poller cannot wait on anyway.
type file struct{ fd int }

// openFile opens path with flag (syscall.O_* values) and, when it creates
// the file, perm. It retries on EINTR.
func openFile(path string, flag int, perm uint32) (file, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, perm)
		if err == nil {
			return file{fd}, nil
		}
		if err != syscall.EINTR {
			return file{-1}, &pathError{"open", path, err}
		}
	}
}

// Flags for openFile.
const (
	oAppendCreate = syscall.O_WRONLY | syscall.O_APPEND | syscall.O_CREAT
	oLockCreate   = syscall.O_RDWR | syscall.O_CREAT
	oRead         = syscall.O_RDONLY | syscall.O_NONBLOCK
)

// write writes b in one write(2) call (retried on EINTR only): under the
// spool lock, a line is whole or, after a short write, truncated away.
func (f file) write(b []byte) (int, error) {
	for {
		n, err := syscall.Write(f.fd, b)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}

func (f file) size() (int64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err != nil {
		return -1, err
	}
	return st.Size, nil
}

func (f file) truncate(n int64) error { return syscall.Ftruncate(f.fd, n) }

func (f file) close() error { return syscall.Close(f.fd) }

// lock takes an exclusive flock on f, polling without blocking so the wait
// is bounded and no thread is left stuck in the kernel.
func (f file) lock(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for i := 0; ; i++ {
		err := syscall.Flock(f.fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if err == syscall.EINTR {
			continue
		}
		if err != syscall.EWOULDBLOCK {
			return err
		}
		now := time.Now()
		if !now.Before(deadline) {
			return ErrLockTimeout
		}
		time.Sleep(min(backoff(i), deadline.Sub(now)))
	}
}

func (f file) unlock() error { return syscall.Flock(f.fd, syscall.LOCK_UN) }

// The rest of the hook's contact with the system, also without package os:
// importing os costs every hook process its initialisation, about 0.15 ms
// here (BENCHMARKS.md), which is most of what separates sepad-hook from a
// bare Go appender.

func getenv(key string) string { v, _ := syscall.Getenv(key); return v }

// userHome is os.UserHomeDir on Unix: $HOME.
func userHome() string { return getenv("HOME") }

// tempDir is os.TempDir on Unix.
func tempDir() string { return tempDirFrom(getenv) }

// tempDirFrom is tempDir with the environment lookup given.
func tempDirFrom(getenv func(string) string) string {
	if d := getenv("TMPDIR"); d != "" {
		return d
	}
	return "/tmp"
}

func getuid() int { return syscall.Getuid() }

// isNotExist reports whether err says a file or directory is missing.
func isNotExist(err error) bool { return errors.Is(err, syscall.ENOENT) }

// statRegular reports whether path is (or links to) a regular file, and
// its size.
func statRegular(path string) (int64, bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil || uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFREG {
		return 0, false
	}
	return st.Size, true
}

// lexists reports whether path exists, without following a last link.
func lexists(path string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(path, &st) == nil
}

// isDir reports whether path is (or links to) a directory.
func isDir(path string) bool {
	var st syscall.Stat_t
	return syscall.Stat(path, &st) == nil && uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFDIR
}

func (f file) read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
}

// readDirNames returns the names in dir, sorted, like os.ReadDir's order.
func readDirNames(dir string) ([]string, error) {
	f, err := openFile(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.close()
	var names []string
	buf := make([]byte, 8192)
	for {
		n, err := syscall.ReadDirent(f.fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &pathError{"readdirent", dir, err}
		}
		if n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
	slices.Sort(names)
	return names, nil
}

// mkdirAll is os.MkdirAll.
func mkdirAll(path string, perm uint32) error {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err == nil {
		if uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFDIR {
			return nil
		}
		return &pathError{"mkdir", path, syscall.ENOTDIR}
	}
	if parent := dirPath(path); parent != path && parent != "." {
		if err := mkdirAll(parent, perm); err != nil {
			return err
		}
	}
	if err := syscall.Mkdir(path, perm); err != nil {
		if err == syscall.EEXIST && isDir(path) {
			return nil
		}
		return &pathError{"mkdir", path, err}
	}
	return nil
}

// fdStream is a standard stream of the process as a plain descriptor.
type fdStream int

func (s fdStream) Read(p []byte) (int, error) {
	n, err := file{int(s)}.read(p)
	if n == 0 && err == nil && len(p) > 0 {
		return 0, io.EOF
	}
	return n, err
}

func (s fdStream) Write(p []byte) (int, error) { return file{int(s)}.write(p) }

// Stdin and Stderr are the process's standard input and error, for a hook
// binary that does not link package os (cmd/sepad-hook).
func Stdin() io.Reader  { return fdStream(0) }
func Stderr() io.Writer { return fdStream(2) }

// regular reports whether f is a regular file.
func (f file) regular() bool {
	var st syscall.Stat_t
	return syscall.Fstat(f.fd, &st) == nil && uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFREG
}
