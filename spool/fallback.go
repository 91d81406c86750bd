package spool

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// RuntimeFallbackMax bounds a runtime fallback file (RuntimeFallbackPaths):
// it lives in memory (a tmpfs), so a full disk that lasts must not fill
// the machine's memory. A line that would take the file past the bound is
// lost (Append returns an error starting with "line lost").
const RuntimeFallbackMax = 16 << 20

// ErrFallbackFull is returned for a line that would take a runtime
// fallback file past RuntimeFallbackMax.
var ErrFallbackFull = errors.New("runtime fallback file is full")

// RuntimeFallbackPaths lists, in the order Append tries them, the fallback
// files of home on file systems other than home's, for when the spool and
// events.fallback.jsonl cannot be written (a full disk):
// <base>/sepa-<uid>/fallback-<dev>-<ino>.jsonl, where base is
// $XDG_RUNTIME_DIR, /run/user/<uid>, then /dev/shm (those that exist,
// each once), and dev and ino (hex) identify home itself, so every state
// directory has its own file whatever path names it. The daemon follows
// every one of them. Empty when home does not exist, or on a platform
// without them (Windows).
func RuntimeFallbackPaths(home string) []string {
	dev, ino, ok := statDevIno(home)
	if !ok {
		return nil
	}
	uid := strconv.Itoa(os.Getuid())
	name := "fallback-" + strconv.FormatUint(dev, 16) + "-" + strconv.FormatUint(ino, 16) + ".jsonl"
	var out []string
	for _, base := range runtimeBases() {
		if fi, err := os.Stat(base); base == "" || !filepath.IsAbs(base) || err != nil || !fi.IsDir() {
			continue
		}
		p := filepath.Join(base, "sepa-"+uid, name)
		dup := false
		for _, q := range out {
			dup = dup || q == p
		}
		if !dup {
			out = append(out, p)
		}
	}
	return out
}

// runtimeBases are the directories RuntimeFallbackPaths looks in, in
// order; tests replace it to keep their files out of the real ones.
var runtimeBases = func() []string {
	return []string{os.Getenv("XDG_RUNTIME_DIR"), "/run/user/" + strconv.Itoa(os.Getuid()), "/dev/shm"}
}

// appendRuntimeFallback appends buf to a runtime fallback file, in a
// private directory it creates, never past RuntimeFallbackMax.
func appendRuntimeFallback(path string, buf []byte, wait time.Duration) error {
	dir := filepath.Dir(path)
	if !privateDir(dir) {
		return errors.New(dir + ": missing, or not a private directory of this user")
	}
	return appendFallback(path, buf, wait, RuntimeFallbackMax, oAppendCreateNoFollow)
}
