// Package tmpfs gives tests a small file system of their own to fill up:
// the disk-full tests of the collector and of the daemon share it.
package tmpfs

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Mount mounts a tmpfs of size (as mount's size= option: "4m") on a new
// temporary directory, mode 0700, and unmounts it when the test ends. It
// skips the test, saying why, where that is not possible: it needs root
// and Linux's mount.
func Mount(t testing.TB, size string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: needs root to mount a small tmpfs (mount -t tmpfs -o size=" + size + ") and fill it")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("skipped: cannot mount a tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		// Lazily: a daemon the test killed may still be closing files.
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// Fill writes a file in dir until its file system is full (ENOSPC) and
// returns its path: removing it frees the space again.
func Fill(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 4096)
	for {
		if _, err := f.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return p
		}
	}
}
