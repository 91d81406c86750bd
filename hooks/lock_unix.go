//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock on f, polling without blocking so the
// wait is bounded and no thread is left stuck in the kernel.
func lockFile(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	fd := int(f.Fd())
	for i := 0; ; i++ {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		now := time.Now()
		if !now.Before(deadline) {
			return ErrLockTimeout
		}
		time.Sleep(min(backoff(i), deadline.Sub(now)))
	}
}

func unlockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
