package prompt

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// errNotRegular: the hook reads only regular files.
var errNotRegular = errors.New("not a regular file")

// openRegular opens path for reading if it is a regular file, and gives
// its size. The files read here are named by payloads and found in cloned
// repositories, where anyone may have put a FIFO in a prompt file's
// place: a plain open of a FIFO waits for a writer, and the agent with it.
// So the file is opened without waiting (oRead, O_NONBLOCK where there
// are FIFOs) and checked on the open descriptor, which a path swapped
// afterwards cannot fool.
func openRegular(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, oRead, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, &fs.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	return f, fi.Size(), nil
}

// readFile reads the regular file path (openRegular), at most max+1 bytes
// so a caller can tell a file over max, into a buffer of the file's size
// (one read and the one that sees its end). A failed read wraps a
// *fs.PathError whose Op is "read".
func readFile(path string, max int64) ([]byte, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var b bytes.Buffer
	b.Grow(int(min(size, max)) + bytes.MinRead)
	_, err = b.ReadFrom(io.LimitReader(f, max+1))
	return b.Bytes(), err
}

// isRegular reports whether path is (or links to) a regular file: the
// check before a file is opened, so a FIFO is never waited on.
func isRegular(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// isDir reports whether path is (or links to) a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// readDirNames returns the names in dir, sorted.
func readDirNames(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, nil
}

// subdirs returns the names of dir's subdirectories, sorted, not counting
// symbolic links, and whether dir has an entry named .claude (of any
// type). os.ReadDir takes the types from the listing where the system
// gives them (Linux's d_type), so a directory costs one listing.
func subdirs(dir string) (names []string, claude bool, err error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	for _, e := range ents {
		if e.Name() == ".claude" {
			claude = true
		}
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names, claude, nil
}
