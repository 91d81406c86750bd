package tmpfs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A mounted tmpfs fills up, refuses a further write with ENOSPC, and
// takes writes again once the filler is removed.
func TestMountFill(t *testing.T) {
	dir := Mount(t, "1m")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mount point: %v %v", fi, err)
	}
	filler := Fill(t, dir)
	err := os.WriteFile(filepath.Join(dir, "more"), make([]byte, 8192), 0o600)
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a write on a full tmpfs: %v, want ENOSPC", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "more"), make([]byte, 8192), 0o600); err != nil {
		t.Fatalf("a write after the filler was removed: %v", err)
	}
}
