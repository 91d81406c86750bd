//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"io"
	"syscall"
)

// oTruncCreate opens the notices file for rewriting.
const oTruncCreate = syscall.O_WRONLY | syscall.O_TRUNC | syscall.O_CREAT

func removeFile(path string) error {
	if err := syscall.Unlink(path); err != nil {
		return &pathError{"remove", path, err}
	}
	return nil
}

// Stdout is the process's standard output, written with plain system
// calls (see Stdin).
func Stdout() io.Writer { return fdStream(1) }
