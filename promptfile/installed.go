package promptfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// InstalledName is the file in $SEPA_HOME listing the projects where
// `sepad install` wrote its hook, one absolute path a line: with
// ~/.claude and mutation.extra_roots, the only places rollbacks write.
const InstalledName = "installed-projects"

// InstalledRoots reads the projects recorded in home (none when the file
// is missing or unreadable: no project is then writable).
func InstalledRoots(home string) []string {
	b, err := os.ReadFile(filepath.Join(home, InstalledName))
	if err != nil {
		return nil
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if l := sc.Text(); filepath.IsAbs(l) && !slices.Contains(out, filepath.Clean(l)) {
			out = append(out, filepath.Clean(l))
		}
	}
	return out
}

// RecordInstalledRoot adds project (an absolute path) to home's list.
func RecordInstalledRoot(home, project string) error {
	return editInstalled(home, func(roots []string) []string {
		if slices.Contains(roots, project) {
			return roots
		}
		return append(roots, project)
	})
}

// ForgetInstalledRoot removes project from home's list.
func ForgetInstalledRoot(home, project string) error {
	return editInstalled(home, func(roots []string) []string {
		return slices.DeleteFunc(roots, func(r string) bool { return r == project })
	})
}

func editInstalled(home string, edit func([]string) []string) error {
	before := InstalledRoots(home)
	after := edit(slices.Clone(before))
	if slices.Equal(before, after) {
		return nil
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return fmt.Errorf("record installed projects: %w", err)
	}
	var b bytes.Buffer
	for _, r := range after {
		if !filepath.IsAbs(r) {
			return fmt.Errorf("record installed projects: %q is not an absolute path", r)
		}
		b.WriteString(filepath.Clean(r) + "\n")
	}
	p := filepath.Join(home, InstalledName)
	tmp, err := os.CreateTemp(home, "."+InstalledName+".tmp*")
	if err != nil {
		return fmt.Errorf("record installed projects: %w", err)
	}
	_, err = tmp.Write(b.Bytes())
	if err == nil {
		err = tmp.Chmod(0o600)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("record installed projects in %s: %w", p, err)
	}
	return nil
}

// ErrTrustRoot refuses "/" and the home directory: a project is below them.
var ErrTrustRoot = errors.New("is not a project directory: sepad never writes in / or your home directory as a whole")

// ErrNotDirectory: what `sepad trust` was given is not a directory.
var ErrNotDirectory = errors.New("is not a directory")

// TrustedDir resolves dir to the absolute, clean path of an existing
// directory that is neither a file system root nor the user's home.
func TrustedDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("no directory %s", abs)
	}
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s %w", abs, ErrNotDirectory)
	}
	if abs == filepath.Dir(abs) {
		return "", fmt.Errorf("%s %w", abs, ErrTrustRoot)
	}
	if uh, err := os.UserHomeDir(); err == nil && filepath.Clean(uh) == abs {
		return "", fmt.Errorf("%s %w", abs, ErrTrustRoot)
	}
	return abs, nil
}
