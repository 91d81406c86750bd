//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"os"
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
			return file{-1}, &os.PathError{Op: "open", Path: path, Err: err}
		}
	}
}

// Flags for openFile.
const (
	oAppendCreate = syscall.O_WRONLY | syscall.O_APPEND | syscall.O_CREAT
	oLockCreate   = syscall.O_RDWR | syscall.O_CREAT
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
