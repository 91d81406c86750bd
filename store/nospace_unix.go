//go:build !windows

package store

import (
	"errors"
	"syscall"
)

// isNoSpace reports whether err is the file system's "full": no space left
// on the device, or the user's disk quota exceeded.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}
