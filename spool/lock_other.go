//go:build !unix

package spool

import (
	"errors"
	"os"
)

const oAppendCreateNoFollow = oAppendCreate

// errNoLock: this platform has no flock. Lock fails and Append
// writes every line to the fallback file in single O_APPEND writes.
var errNoLock = errors.New("no advisory file lock on this platform")

func tryLock(*os.File) (bool, error) { return false, errNoLock }

func unlockFile(*os.File) error { return nil }

// statDevIno: no runtime fallback file on this platform (see
// RuntimeFallbackPaths).
func statDevIno(string) (dev, ino uint64, ok bool) { return 0, 0, false }

func privateDir(string) bool { return false }
