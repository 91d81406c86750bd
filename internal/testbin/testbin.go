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
// three packages used to spend each (CONTRIBUTING.md).
//
// The caller gets a hard link to the shared binary in its own directory,
// so a later rebuild (which replaces the shared file) never changes a
// binary a running test executes.
//
// Build also stats every file the commands are built from (their
// packages' Go and embedded files in this module, go.mod, go.sum), and
// Consult does again: `go test` keys a cached result on the files a test
// consulted, so a test that runs the binary is run again after any of
// them changes, instead of reporting the result it had for the old
// binary.
//
// It also finds the Claude Code CLIs scripts/claude-code.sh installed
// (claude.go), for the tests that run the real client.
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
	"strings"
	"sync"
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
	files, err := sources(root, names)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	built = append(built, files...)
	mu.Unlock()
	Consult()
	return out, nil
}

var (
	mu    sync.Mutex
	built []string // the files the commands built so far are built from
)

// Consult stats the files the commands built so far are built from. go
// test records what a test consults only while tests run (from m.Run
// on), so a TestMain that builds before m.Run calls this from the helpers
// its tests run the binary through.
func Consult() {
	mu.Lock()
	defer mu.Unlock()
	for _, f := range built {
		os.Stat(f) // recorded by go test as an input of the result
	}
}

// sources lists the files the commands are built from within the module:
// each package's Go and embedded files, go.mod and go.sum.
func sources(root string, names []string) ([]string, error) {
	args := []string{"list", "-deps", "-f", `{{if .Module}}{{if .Module.Main}}{{.Dir}}|{{join .GoFiles "|"}}|{{join .CgoFiles "|"}}|{{join .SFiles "|"}}|{{join .EmbedFiles "|"}}{{end}}{{end}}`}
	for _, n := range names {
		args = append(args, "./cmd/"+n)
	}
	list := exec.Command("go", args...)
	list.Dir = root
	list.Env = append(os.Environ(), "CGO_ENABLED=0")
	b, err := list.Output()
	if err != nil {
		return nil, fmt.Errorf("go list the commands' files: %v", err)
	}
	files := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		parts := strings.Split(line, "|")
		for _, f := range parts[1:] {
			if f != "" {
				files = append(files, filepath.Join(parts[0], f))
			}
		}
	}
	return files, nil
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
