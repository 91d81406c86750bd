//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package hooks

import (
	"io"
	"os"
)

const oTruncCreate = os.O_WRONLY | os.O_TRUNC | os.O_CREATE

func removeFile(path string) error { return os.Remove(path) }

// Stdout is the process's standard output.
func Stdout() io.Writer { return os.Stdout }
