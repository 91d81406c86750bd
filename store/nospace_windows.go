//go:build windows

package store

import (
	"errors"
	"syscall"
)

// Windows' "disk full" errors (winerror.h).
const (
	errorHandleDiskFull syscall.Errno = 39
	errorDiskFull       syscall.Errno = 112
)

// isNoSpace reports whether err is the file system's "full".
func isNoSpace(err error) bool {
	return errors.Is(err, errorDiskFull) || errors.Is(err, errorHandleDiskFull) || errors.Is(err, syscall.ENOSPC)
}
