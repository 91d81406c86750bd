//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package hooks

import (
	"errors"
	"os"
	"time"
)

// errNoLock: this platform has no flock; LockSpool fails and Append writes
// every line to the fallback file in single O_APPEND writes.
var errNoLock = errors.New("no advisory file lock on this platform")

func lockFile(f *os.File, timeout time.Duration) error { return errNoLock }

func unlockFile(f *os.File) error { return nil }
