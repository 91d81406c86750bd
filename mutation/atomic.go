package mutation

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Errors callers branch on.
var (
	// ErrConflict: the file no longer holds the version a rollback would
	// replace: someone edited it, and it is left alone.
	ErrConflict = errors.New("file was edited since the version being replaced: left alone")
	// ErrOutsideRoots: the path, with symbolic links resolved, is not under
	// a watched root.
	ErrOutsideRoots = errors.New("path is outside the watched skill roots")
	// ErrNotRegular: the path names a directory, device or other
	// non-regular file, which sepad never replaces.
	ErrNotRegular = errors.New("not a regular file")
)

// Hash is a version's identity: the first 12 hex digits of the sha256 of
// the content, as the hook computes it.
func Hash(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:6])
}

// resolve returns the file that writing path would change: path with its
// directory's symbolic links resolved and, when path itself is a symbolic
// link, the file it points to. Both path and its target must lie under
// one of roots (roots' own links resolved too), so that neither ".."
// segments nor links can lead a write outside them.
func resolve(path string, roots []string) (string, error) {
	clean := filepath.Clean(path)
	if !filepath.IsAbs(clean) {
		abs, err := filepath.Abs(clean)
		if err != nil {
			return "", err
		}
		clean = abs
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(clean))
	if err != nil {
		return "", err
	}
	real := filepath.Join(dir, filepath.Base(clean))
	var resolved []string
	for _, r := range roots {
		if r == "" {
			continue
		}
		rr, err := filepath.EvalSymlinks(filepath.Clean(r))
		if err != nil {
			continue
		}
		if rr, err = filepath.Abs(rr); err == nil {
			resolved = append(resolved, rr)
		}
	}
	if !under(real, resolved) {
		return "", ErrOutsideRoots
	}
	fi, err := os.Lstat(real)
	if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(real)
		if err != nil {
			return "", err // a dangling link: nothing to replace
		}
		if !under(target, resolved) {
			return "", ErrOutsideRoots
		}
		real = target
	}
	return real, nil
}

// under reports whether p is strictly inside one of roots.
func under(p string, roots []string) bool {
	for _, r := range roots {
		rel, err := filepath.Rel(r, p)
		if err != nil || rel == "." || filepath.IsAbs(rel) {
			continue
		}
		if rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// WithinRoots reports whether a write to path would stay under roots.
func WithinRoots(path string, roots []string) bool {
	_, err := resolve(path, roots)
	return err == nil
}

// WriteFileAtomic replaces path with content so that readers see the old
// or the new content, never a mix, and a crash leaves one of the two: a
// temporary file in the same directory, fsync, rename over the file, fsync
// of the directory. The file's permission bits (and setuid, setgid,
// sticky) are kept; a new file gets 0644. A symbolic link is written
// through, so the link stays a link. Paths outside roots are refused with
// ErrOutsideRoots.
func WriteFileAtomic(path string, content []byte, roots []string) error {
	real, err := resolve(path, roots)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return replace(real, content, nil)
}

// Rollback puts content back into path if, and only if, the file still
// hashes to expectHash (the version being replaced); otherwise it returns
// ErrConflict and leaves the file byte for byte as it was. expectHash ""
// means the file is expected to be absent. The write is WriteFileAtomic's,
// and the hash is checked again just before the rename, so an edit made
// while the new content was being written is not lost either (an edit in
// the microseconds between that check and the rename still could be: no
// portable lock keeps editors out).
func Rollback(path, expectHash string, content []byte, roots []string) error {
	real, err := resolve(path, roots)
	if err != nil {
		return fmt.Errorf("roll back %s: %w", path, err)
	}
	check := func() error {
		cur, err := os.ReadFile(real)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if expectHash != "" {
				return fmt.Errorf("the file was deleted (expected version %s): %w", expectHash, ErrConflict)
			}
			return nil
		case err != nil:
			return err
		case Hash(cur) != expectHash:
			return fmt.Errorf("it holds version %s, not %s: %w", Hash(cur), expectHash, ErrConflict)
		}
		return nil
	}
	if err := check(); err != nil {
		return fmt.Errorf("roll back %s: %w", path, err)
	}
	if cur, err := os.ReadFile(real); err == nil && bytes.Equal(cur, content) {
		return nil // already there
	}
	if err := replace(real, content, check); err != nil {
		return fmt.Errorf("roll back %s: %w", path, err)
	}
	return nil
}

// replace writes content over real (already resolved) atomically; before
// the rename it calls check, if any, and gives up when it fails.
func replace(real string, content []byte, check func() error) error {
	mode := fs.FileMode(0o644)
	fi, err := os.Stat(real)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		return fmt.Errorf("%s: %w", real, ErrNotRegular)
	case err == nil:
		mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(real)
	// A hidden name, so that watchers of prompt files ignore it.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(real)+".sepad-*.tmp")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(content); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), real); err != nil {
		return err
	}
	done = true
	return syncDir(dir)
}

// syncDir makes a rename in dir durable. File systems that cannot sync a
// directory (EINVAL) are taken at their word.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}
