//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// The system-call helpers of file_unix.go against the os functions they
// stand in for.

func TestReadDirNamesMatchesReadDir(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.md", "a.md", "Z", ".hidden", "dir", "ü.md"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o600)
	}
	for i := 0; i < 600; i++ { // more than one getdents buffer
		os.WriteFile(filepath.Join(dir, "agent-"+string(rune('a'+i%26))+string(rune('a'+i/26))+".md"), nil, 0o600)
	}
	got, err := readDirNames(dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var want []string
	for _, e := range ents {
		want = append(want, e.Name())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("readDirNames: %d names, os.ReadDir %d", len(got), len(want))
	}
	if _, err := readDirNames(filepath.Join(dir, "missing")); !isNotExist(err) {
		t.Fatalf("missing dir: %v", err)
	}
	if _, err := readDirNames(filepath.Join(dir, "a.md")); err == nil {
		t.Fatal("a file read as a directory")
	}
}

func TestMkdirAll(t *testing.T) {
	base := t.TempDir()
	p := filepath.Join(base, "a", "b", "c")
	if err := mkdirAll(p, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(base, "a"), p} {
		fi, err := os.Stat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm()&^0o700 != 0 {
			t.Fatalf("%s: %v %v", d, fi, err)
		}
	}
	if err := mkdirAll(p, 0o700); err != nil {
		t.Fatalf("existing: %v", err)
	}
	f := filepath.Join(base, "file")
	os.WriteFile(f, nil, 0o600)
	if err := mkdirAll(filepath.Join(f, "x"), 0o700); !errors.Is(err, syscall.ENOTDIR) {
		t.Fatalf("under a file: %v", err)
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o600)
	for _, tc := range []struct {
		max  int64
		want string
	}{{100, "0123456789"}, {10, "0123456789"}, {4, "01234"}} {
		b, err := readFile(p, tc.max)
		if err != nil || string(b) != tc.want {
			t.Fatalf("max %d: %q %v", tc.max, b, err)
		}
	}
	if _, err := readFile(dir, 10); err == nil {
		t.Fatal("read a directory as a file")
	}
	if _, err := readFile(filepath.Join(dir, "missing"), 10); !isNotExist(err) {
		t.Fatalf("missing: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err == nil {
		if _, err := readFile(filepath.Join(dir, "fifo"), 10); err == nil {
			t.Fatal("read a FIFO")
		}
	}
}
