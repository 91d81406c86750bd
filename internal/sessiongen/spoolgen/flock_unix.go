//go:build !windows

package main

import (
	"os"
	"syscall"
)

// flock takes the exclusive lock the hook takes (released on close).
func flock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
