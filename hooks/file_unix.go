//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"bytes"
	"errors"
	"io"
	"runtime"
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

// readAt reads at offset off (pread), retried on EINTR.
func (f file) readAt(p []byte, off int64) (int, error) {
	for {
		n, err := syscall.Pread(f.fd, p, off)
		if err == syscall.EINTR {
			continue
		}
		if n < 0 {
			n = 0
		}
		return n, err
	}
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

// subdirs returns the names of dir's subdirectories, sorted, not counting
// symbolic links, and whether dir has an entry named .claude (of any
// type). On Linux the entries' types come with the listing (d_type), so a
// directory costs one getdents call; elsewhere, or when a file system
// does not report types, each candidate is lstat'ed. buf is the listing
// buffer (8 KiB is plenty; nil allocates one).
func subdirs(dir string, buf []byte) (names []string, claude bool, err error) {
	f, err := openFile(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.close()
	if len(buf) < 1024 {
		buf = make([]byte, 8192)
	}
	for {
		n, err := syscall.ReadDirent(f.fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, false, &pathError{"readdirent", dir, err}
		}
		if n <= 0 {
			break
		}
		if runtime.GOOS != "linux" {
			var all []string
			_, _, all = syscall.ParseDirent(buf[:n], -1, nil)
			for _, name := range all {
				if name == ".claude" {
					claude = true
				}
				if lstatDir(dir, name) {
					names = append(names, name)
				}
			}
			continue
		}
		for b := buf[:n]; len(b) >= direntName; {
			reclen := int(b[direntReclen]) | int(b[direntReclen+1])<<8
			if bigEndian {
				reclen = int(b[direntReclen])<<8 | int(b[direntReclen+1])
			}
			if reclen < direntName || reclen > len(b) {
				return nil, false, &pathError{"readdirent", dir, syscall.EINVAL}
			}
			name := b[direntName:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			s, typ := string(name), b[direntType]
			if s == ".claude" {
				claude = true
			}
			if s != "." && s != ".." && (typ == dtDir || typ == dtUnknown && lstatDir(dir, s)) {
				names = append(names, s)
			}
			b = b[reclen:]
		}
	}
	slices.Sort(names)
	return names, claude, nil
}

// Linux's struct linux_dirent64, which getdents64 fills: d_ino (8 bytes),
// d_off (8), d_reclen (2, native byte order), d_type (1), d_name.
const (
	direntReclen = 16
	direntType   = 18
	direntName   = 19
	dtUnknown    = 0
	dtDir        = 4
)

// bigEndian: d_reclen's byte order on the big-endian architectures Go
// supports on Linux.
var bigEndian = runtime.GOARCH == "s390x" || runtime.GOARCH == "ppc64" || runtime.GOARCH == "mips" || runtime.GOARCH == "mips64"

// lstatDir reports whether dir/name is a directory, not following a link.
func lstatDir(dir, name string) bool {
	var st syscall.Stat_t
	return syscall.Lstat(joinPath(dir, name), &st) == nil && uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFDIR
}

// oAppendCreateNoFollow opens a runtime fallback file for appending,
// refusing a symbolic link in its place.
const oAppendCreateNoFollow = oAppendCreate | syscall.O_NOFOLLOW

// statDevIno returns the device and inode number of path.
func statDevIno(path string) (dev, ino uint64, ok bool) {
	var st syscall.Stat_t
	if syscall.Stat(path, &st) != nil {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// privateDir creates dir (0700) when missing and reports whether it is a
// directory, not a link, owned by this user and closed to everyone else:
// in a shared place such as /dev/shm another user may have made it first.
func privateDir(dir string) bool {
	if err := syscall.Mkdir(dir, 0o700); err != nil && err != syscall.EEXIST {
		return false
	}
	var st syscall.Stat_t
	if syscall.Lstat(dir, &st) != nil {
		return false
	}
	return uint32(st.Mode)&syscall.S_IFMT == syscall.S_IFDIR && int(st.Uid) == getuid() && uint32(st.Mode)&0o077 == 0
}
