// Package spool is sepad's state directory on the write side: the spool
// the hook appends one line to per event, the fallback files a line goes to
// when the spool cannot take it, the pending notices, and the advisory lock
// that every writer and the daemon's rotation hold (docs/events.md, "The
// spool"). The hook writes through it (package hooks), the collector reads
// the same paths and rotates under the same lock, the daemon and `sepad
// notices` add notices.
package spool

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// File names inside the state directory (see docs/events.md).
const (
	spoolName    = "events.jsonl"
	fallbackName = "events.fallback.jsonl"
	lockName     = "spool.lock"
	fallbackLog  = "fallback.log"
)

// ErrLockTimeout is returned by Lock when the lock was not had within the
// timeout. Append reacts to it by writing to the fallback file.
var ErrLockTimeout = errors.New("spool lock timeout")

// errNotRegular: sepad reads only regular files (a FIFO would block).
var errNotRegular = errors.New("not a regular file")

// ErrBadLine is returned by Append for a line that contains a newline: it
// would become two lines in the spool.
var ErrBadLine = errors.New("line contains a newline")

// Home returns sepad's state directory: $SEPA_HOME, else
// $XDG_STATE_HOME/sepa, else ~/.local/state/sepa. A relative
// $XDG_STATE_HOME is ignored, as the XDG spec requires.
func Home() string {
	h, _ := os.UserHomeDir()
	return homeFrom(os.Getenv, h, os.TempDir())
}

// homeFrom is Home with its inputs given: the environment lookup, the
// user's home directory and the temporary directory.
func homeFrom(getenv func(string) string, userHome, tempDir string) string {
	if h := getenv("SEPA_HOME"); h != "" {
		return h
	}
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "sepa")
	}
	if userHome != "" {
		return filepath.Join(userHome, ".local", "state", "sepa")
	}
	return filepath.Join(tempDir, "sepa-"+strconv.Itoa(os.Getuid()))
}

// Path is the spool every hook call appends to: home/events.jsonl.
func Path(home string) string { return filepath.Join(home, spoolName) }

// FallbackPath is where Append writes a line it could not append to the
// spool within the bounded wait (lock busy, disk full):
// home/events.fallback.jsonl. The collector follows it like the spool.
func FallbackPath(home string) string { return filepath.Join(home, fallbackName) }

// LockPath is the advisory lock file guarding the spool:
// home/spool.lock. The lock is on this file, not on the spool, because the
// daemon renames the spool to rotate it while holding the same lock.
func LockPath(home string) string { return filepath.Join(home, lockName) }

// FallbackLogPath is the fallback counter: one short line
// "<RFC 3339 time> <reason>" per line Append sent to the fallback file.
func FallbackLogPath(home string) string { return filepath.Join(home, fallbackLog) }

// FallbackCount returns how many lines went to the fallback file, from the
// fallback log (0 when it does not exist).
func FallbackCount(home string) (int, error) {
	b, err := os.ReadFile(FallbackLogPath(home))
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read fallback log: %w", err)
	}
	return bytes.Count(b, []byte{'\n'}), nil
}

// readRegular reads path, at most max+1 bytes (so a caller can tell a file
// over max), refusing anything but a regular file: the notices are read by
// the hook at SessionStart, which must never wait on a FIFO.
func readRegular(path string, max int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max+1))
}

// ensureHome creates the state directory 0700 when missing. An existing
// directory keeps its mode: it is the user's.
func ensureHome(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("create state directory %s: %w", home, err)
	}
	return nil
}

// Lock takes the spool lock (an exclusive flock on LockPath), waiting at
// most timeout, and returns the function that releases it. Everything that
// appends to the spool or renames it holds this lock. When the lock is not
// had in time the error wraps ErrLockTimeout.
func Lock(home string, timeout time.Duration) (unlock func() error, err error) {
	const flag = os.O_RDWR | os.O_CREATE
	f, err := os.OpenFile(LockPath(home), flag, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		// The common case has the directory: create it only when missing.
		if err := ensureHome(home); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(LockPath(home), flag, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("open spool lock: %w", err)
	}
	if err := lockWait(f, timeout); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", LockPath(home), err)
	}
	done := false
	return func() error {
		if done {
			return nil
		}
		done = true
		uerr := unlockFile(f)
		if cerr := f.Close(); uerr == nil {
			uerr = cerr
		}
		return uerr
	}, nil
}

// lockWait takes the exclusive advisory lock on f within timeout. It polls
// a non-blocking flock instead of making a blocking one, because a
// blocking flock cannot be given a deadline: the hook's wait must end
// (then the line goes to the fallback file), and no thread may be left
// stuck in the kernel behind a holder that never lets go.
func lockWait(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for i := 0; ; i++ {
		busy, err := tryLock(f)
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

// backoff is the polling schedule of the bounded lock wait: short first,
// since holders keep the lock for one write.
func backoff(i int) time.Duration {
	return 50 * time.Microsecond << min(i, 6) // 50µs .. 3.2ms
}

// Append appends line and a newline to the spool in one write, under the
// spool lock with a bounded wait (timeout). If the lock is not had in time
// or the write fails (disk full, ...), the line goes to the fallback file
// instead, also in one O_APPEND write with a bounded wait on that file's
// own lock, and one line is added to the fallback log. It creates home
// (0700) and the files (0600) when missing and returns the path of the file
// that holds the line. A line containing '\n' is refused (ErrBadLine).
func Append(home string, line []byte, timeout time.Duration) (wrote string, err error) {
	wrote, _, err = AppendUnless(home, line, timeout, nil)
	return wrote, err
}

// AppendUnless is Append with a check: when dup is not nil it runs under
// the spool lock, given the spool's path, and when it reports the line
// already there (for the hook, the other copy of a double-installed event)
// nothing is written and duplicate is set.
func AppendUnless(home string, line []byte, timeout time.Duration, dup func(spool string) bool) (wrote string, duplicate bool, err error) {
	line = bytes.TrimRight(line, "\r\n")
	if bytes.IndexByte(line, '\n') >= 0 {
		return "", false, ErrBadLine
	}
	buf := make([]byte, len(line)+1)
	copy(buf, line)
	buf[len(line)] = '\n'

	unlock, lerr := Lock(home, timeout)
	var reason string
	if lerr == nil {
		if dup != nil && dup(Path(home)) {
			return Path(home), true, unlock()
		}
		werr := appendLocked(Path(home), buf)
		uerr := unlock()
		if werr == nil {
			if uerr != nil {
				return Path(home), false, fmt.Errorf("unlock spool: %w", uerr)
			}
			return Path(home), false, nil
		}
		reason = "write-failed"
		lerr = werr
	} else if errors.Is(lerr, ErrLockTimeout) {
		reason = "lock-timeout"
	} else {
		reason = "lock-failed"
	}
	// Fallback: wait a quarter of the budget at most for its own lock.
	fb := FallbackPath(home)
	wait := min(timeout/4, 250*time.Millisecond)
	ferr := appendFallback(fb, buf, wait, 0, oAppendCreate)
	if ferr == nil {
		noteFallback(home, reason)
		return fb, false, nil
	}
	// The fallback file is on the same file system as the spool: when
	// that one is full, try the runtime fallback files, on other file
	// systems (tmpfs), each with the same bounded wait.
	msg := "line lost: spool: " + lerr.Error() + "; fallback: " + ferr.Error()
	for _, p := range RuntimeFallbackPaths(home) {
		rerr := appendRuntimeFallback(p, buf, wait)
		if rerr == nil {
			noteFallback(home, reason+" runtime")
			return p, false, nil
		}
		msg += "; " + p + ": " + rerr.Error()
	}
	return "", false, errors.New(msg)
}

// oAppendCreate opens the spool and the fallback files for appending.
const oAppendCreate = os.O_WRONLY | os.O_APPEND | os.O_CREATE

// appendLocked writes buf at the end of path in one O_APPEND write. The
// caller holds the spool lock, so nobody else appends meanwhile: a failed
// or short write is undone by truncating back to the old size, so the spool
// never keeps half a line.
func appendLocked(path string, buf []byte) error {
	f, err := os.OpenFile(path, oAppendCreate, 0o600)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	size := fileSize(f)
	n, werr := f.Write(buf)
	if werr != nil && n > 0 && size >= 0 {
		f.Truncate(size) // best effort: drop the partial line
	}
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("write %s: %w", path, werr)
	}
	if cerr != nil {
		return fmt.Errorf("close %s: %w", path, cerr)
	}
	return nil
}

// fileSize is f's size, -1 when it cannot be had.
func fileSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return -1
	}
	return fi.Size()
}

// appendFallback appends buf to the fallback file. It holds that file's own
// flock when it gets it within wait, which serialises writers on file
// systems where O_APPEND writes may interleave; past the wait it writes
// anyway (one O_APPEND write is atomic on local Linux and BSD file systems),
// because losing the line is worse.
//
// With limit > 0, a write that would take the file past limit bytes is
// refused with ErrFallbackFull.
func appendFallback(path string, buf []byte, wait time.Duration, limit int64, flag int) error {
	f, err := os.OpenFile(path, flag, 0o600)
	if errors.Is(err, os.ErrNotExist) {
		if err := ensureHome(filepath.Dir(path)); err != nil {
			return err
		}
		f, err = os.OpenFile(path, flag, 0o600)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	locked := lockWait(f, wait) == nil
	var size int64 = -1
	if locked || limit > 0 {
		size = fileSize(f)
	}
	if limit > 0 && size+int64(len(buf)) > limit {
		if locked {
			unlockFile(f)
		}
		f.Close()
		return fmt.Errorf("write %s: %w", path, ErrFallbackFull)
	}
	n, werr := f.Write(buf)
	if werr != nil && n > 0 && size >= 0 && locked {
		f.Truncate(size)
	}
	if locked {
		unlockFile(f)
	}
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("write %s: %w", path, werr)
	}
	return cerr
}

// noteFallback adds one line to the fallback log; best effort (the disk may
// be the reason we are here).
func noteFallback(home, reason string) {
	f, err := os.OpenFile(FallbackLogPath(home), oAppendCreate, 0o600)
	if err != nil {
		return
	}
	f.Write([]byte(time.Now().UTC().Format(time.RFC3339Nano) + " " + reason + "\n"))
	f.Close()
}
