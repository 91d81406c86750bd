package promptfile

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
	// ErrOutsideRoots: the path, with symbolic links resolved, is not
	// under a root sepad may use (for writes: an installed project,
	// mutation.extra_roots or the user's ~/.claude).
	ErrOutsideRoots = errors.New("path is outside the roots sepad may write")
	// ErrNotRegular: the path names a directory, device or other
	// non-regular file, which sepad never replaces.
	ErrNotRegular = errors.New("not a regular file")
)

// MaxPromptSize is the largest prompt file sepad reads; a larger file is
// not a prompt and is skipped (the watcher counts it in watch.Stats.Errors).
const MaxPromptSize = 8 << 20

// Hash is a version's identity: the first 12 hex digits of the sha256 of
// the content, as the hook computes it.
func Hash(content []byte) string {
	h := sha256.Sum256(content)
	return hex.EncodeToString(h[:6])
}

// testHookLocated, when set by a test, runs after a write has located its
// file and before it opens it: the moment a symlink swap would be tried.
var testHookLocated func(path string)

// located is a prompt file's directory, opened through its root.
type located struct {
	// root is the root the file belongs to, symbolic links resolved.
	root string
	// dir is the file's directory, opened from root one component at a
	// time (os.Root): it cannot be outside root, whatever is swapped in.
	dir *os.Root
	// name is the file's name in dir; path its resolved path.
	name, path string
}

func (l *located) Close() error { return l.dir.Close() }

// locate finds the root path belongs to (the innermost of roots holding
// it, before links are resolved), resolves path's symbolic links, checks
// the result is still inside that same root, and opens its directory
// through the root. A link from inside a root to outside it, "..", or a
// path under no root is ErrOutsideRoots. Links inside the root are
// followed (skills linked from a folder elsewhere in the project).
func locate(path string, roots []string) (*located, error) {
	clean := filepath.Clean(path)
	if !filepath.IsAbs(clean) {
		// Never resolved against the working directory: a relative
		// path, or another system's (C:\Users\… on Linux), is no file
		// of any root here.
		return nil, fmt.Errorf("%s: not an absolute path on this system: %w", path, ErrOutsideRoots)
	}
	// The root it belongs to, by name: as given, or with the root's own
	// links resolved (a root named through a link, like macOS /tmp).
	var root string
	for _, r := range roots {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		r = filepath.Clean(r)
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if (Under(clean, []string{r}) || Under(clean, []string{rr})) && len(rr) > len(root) {
			root = rr
		}
	}
	if root == "" {
		// Named through another name of a root (a link to it): some
		// ancestor of path resolves to the root itself.
		for a := filepath.Dir(clean); root == "" && a != filepath.Dir(a); a = filepath.Dir(a) {
			ra, err := filepath.EvalSymlinks(a)
			if err != nil {
				continue
			}
			for _, r := range roots {
				if rr, err := filepath.EvalSymlinks(filepath.Clean(r)); err == nil && r != "" && filepath.IsAbs(r) && rr == ra {
					root = rr
				}
			}
		}
	}
	if root == "" {
		return nil, ErrOutsideRoots
	}
	real, err := filepath.EvalSymlinks(clean)
	if errors.Is(err, fs.ErrNotExist) {
		// A file to create, or a dangling link (which then stays
		// unresolved, and is refused as not regular when opened).
		dir, derr := filepath.EvalSymlinks(filepath.Dir(clean))
		if derr != nil {
			return nil, derr
		}
		real, err = filepath.Join(dir, filepath.Base(clean)), nil
	}
	if err != nil {
		return nil, err
	}
	if !Under(real, []string{root}) {
		return nil, ErrOutsideRoots
	}
	rel, err := filepath.Rel(root, filepath.Dir(real))
	if err != nil {
		return nil, ErrOutsideRoots
	}
	rt, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer rt.Close()
	dir, err := rt.OpenRoot(rel)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			return nil, fmt.Errorf("%s: %w", filepath.Dir(real), ErrOutsideRoots)
		}
		return nil, err
	}
	if err := checkDirInside(dir, root); err != nil {
		dir.Close()
		return nil, err
	}
	return &located{root: root, dir: dir, name: filepath.Base(real), path: real}, nil
}

// openRegular opens the file for reading and checks, on the open file
// descriptor, that it is a regular file and the very file the directory
// names now (not a symbolic link, not swapped between the open and the
// check). Anything else is ErrNotRegular.
func (l *located) openRegular() (*os.File, fs.FileInfo, error) {
	f, err := l.dir.OpenFile(l.name, os.O_RDONLY|oNoFollow|oNonblock, 0)
	if err != nil {
		if isLinkErr(err) {
			return nil, nil, fmt.Errorf("%s: a symbolic link: %w", l.path, ErrNotRegular)
		}
		if strings.Contains(err.Error(), "escapes") {
			return nil, nil, fmt.Errorf("%s: %w", l.path, ErrOutsideRoots)
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	li, err := l.dir.Lstat(l.name)
	switch {
	case err != nil:
		f.Close()
		return nil, nil, err
	case li.Mode()&fs.ModeSymlink != 0:
		f.Close()
		return nil, nil, fmt.Errorf("%s: a symbolic link: %w", l.path, ErrNotRegular)
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", l.path, ErrNotRegular)
	case !os.SameFile(fi, li):
		f.Close()
		return nil, nil, fmt.Errorf("%s: replaced while being opened: %w", l.path, ErrNotRegular)
	}
	return f, fi, nil
}

// read returns the file's content (at most MaxPromptSize bytes) through
// openRegular.
func (l *located) read() ([]byte, fs.FileInfo, error) {
	f, fi, err := l.openRegular()
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxPromptSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", l.path, err)
	}
	if len(b) > MaxPromptSize {
		return nil, nil, fmt.Errorf("read %s: larger than %d bytes: not a prompt", l.path, MaxPromptSize)
	}
	return b, fi, nil
}

// ReadInRoots reads a prompt file that lies under roots, with the checks
// of a rollback: no link out of its root, a regular file only. A file
// reached through a link to outside its root is never read (its hash
// would tell something of a file sepad has no business with).
func ReadInRoots(path string, roots []string) ([]byte, error) {
	l, err := locate(path, roots)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer l.Close()
	b, _, err := l.read()
	return b, err
}

// Under reports whether p is strictly inside one of roots.
func Under(p string, roots []string) bool {
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
	l, err := locate(path, roots)
	if err == nil {
		l.Close()
	}
	return err == nil
}

// WriteFileAtomic replaces path with content so that readers see the old
// or the new content, never a mix, and a crash leaves one of the two: a
// temporary file in the same directory, fsync, rename over the file, fsync
// of the directory. The file's permission bits (and setuid, setgid,
// sticky) are kept; a new file gets 0644. A symbolic link to a file in
// the same root is written through, so the link stays a link; one leading
// out of the root is refused with ErrOutsideRoots, as are paths outside
// roots. Only regular files are replaced (ErrNotRegular).
func WriteFileAtomic(path string, content []byte, roots []string) error {
	l, err := locate(path, roots)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer l.Close()
	if testHookLocated != nil {
		testHookLocated(path)
	}
	mode := fs.FileMode(0o644)
	f, fi, err := l.openRegular()
	switch {
	case err == nil:
		f.Close()
		mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := l.replace(content, mode, nil); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Rollback puts content back into path if, and only if, the file still
// hashes to expectHash (the version being replaced); otherwise it returns
// ErrConflict and leaves the file byte for byte as it was. expectHash ""
// means the file is expected to be absent. The file must lie under roots
// and be a regular file, checked on its file descriptor (ErrOutsideRoots,
// ErrNotRegular: nothing is written). The write is WriteFileAtomic's, and
// the hash is checked again just before the rename, so an edit made while
// the new content was being written is not lost either (an edit in the
// microseconds between that check and the rename still could be: no
// portable lock keeps editors out; a link swapped in then is replaced,
// never written through).
func Rollback(path, expectHash string, content []byte, roots []string) error {
	l, err := locate(path, roots)
	if err != nil {
		return fmt.Errorf("roll back %s: %w", path, err)
	}
	defer l.Close()
	if testHookLocated != nil {
		testHookLocated(path)
	}
	mode := fs.FileMode(0o644)
	check := func() error {
		cur, fi, err := l.read()
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
		case bytes.Equal(cur, content):
			return errAlreadyThere
		}
		mode = fi.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
		return nil
	}
	switch err := check(); {
	case errors.Is(err, errAlreadyThere):
		return nil
	case err != nil:
		return fmt.Errorf("roll back %s: %w", path, err)
	}
	if err := l.replace(content, mode, check); err != nil && !errors.Is(err, errAlreadyThere) {
		return fmt.Errorf("roll back %s: %w", path, err)
	}
	return nil
}

// errAlreadyThere: the file already holds the content to write.
var errAlreadyThere = errors.New("already there")

// replace writes content over the located file atomically, all through
// the directory's descriptor; before the rename it calls check, if any,
// and gives up when it fails. The rename replaces the directory entry:
// whatever was swapped in under the name (a link included) is replaced,
// never written through.
func (l *located) replace(content []byte, mode fs.FileMode, check func() error) error {
	var rnd [6]byte
	rand.Read(rnd[:])
	// A hidden name, so that watchers of prompt files ignore it.
	tmp := "." + l.name + ".sepad-" + hex.EncodeToString(rnd[:]) + ".tmp"
	f, err := l.dir.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			l.dir.Remove(tmp)
		}
	}()
	if _, err := f.Write(content); err != nil {
		return err
	}
	if err := f.Chmod(mode); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if err := l.dir.Rename(tmp, l.name); err != nil {
		return err
	}
	done = true
	d, err := l.dir.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return fmt.Errorf("sync directory %s: %w", filepath.Dir(l.path), err)
	}
	return nil
}
