// Package testbin builds this module's commands for the tests that run
// them as processes (hooks, e2e, e2e/claudecode), once per source tree
// instead of once per test package.
//
// Each command is built with CGO_ENABLED=0 (as README installs it) into a
// directory shared by every test package of the tree, under os.TempDir
// and named by the module root's path. `go build -o` links again only
// when the binary there is out of date (it compares the build ID it
// would write with the one in the file), and a lock file keeps two test
// packages from linking the same binary at once: a `go test ./...` links
// sepad once at most, and not at all when nothing it is built from
// changed since the last run. Linking sepad takes seconds of CPU, which
// three packages used to spend each (README, "How long the tests take").
//
// The caller gets a hard link to the shared binary in its own directory,
// so a later rebuild (which replaces the shared file) never changes a
// binary a running test executes.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Build builds each cmd/NAME of the module (CGO_ENABLED=0) and puts it in
// dir, named NAME (NAME.exe on Windows), side by side as `go install`
// puts them. It returns the paths in the order of names.
func Build(dir string, names ...string) ([]string, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(root))
	shared := filepath.Join(os.TempDir(), "sepad-testbin-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(shared, 0o700); err != nil {
		return nil, err
	}
	unlock, err := lock(filepath.Join(shared, "lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []string
	for _, name := range names {
		exe := name
		if runtime.GOOS == "windows" {
			exe += ".exe"
		}
		src := filepath.Join(shared, exe)
		build := exec.Command("go", "build", "-o", src, "./cmd/"+name)
		build.Dir = root
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build ./cmd/%s: %v\n%s", name, err, b)
		}
		dst := filepath.Join(dir, exe)
		if err := linkOrCopy(src, dst); err != nil {
			return nil, err
		}
		out = append(out, dst)
	}
	return out, nil
}

// moduleRoot is the directory of the go.mod above the working directory
// (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("testbin: no go.mod above the working directory")
		}
		dir = up
	}
}

// linkOrCopy makes dst a hard link to src, or a copy where links fail.
func linkOrCopy(src, dst string) error {
	os.Remove(dst)
	if os.Link(src, dst) == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}
