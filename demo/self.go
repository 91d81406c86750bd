package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// SelfCommand is how the person can run this sepad again, for the
// commands the demo suggests (Options.Self, when not set): "sepad" when
// that is what PATH finds, "go run ./cmd/sepad" for a binary `go run`
// built and deleted after it exits (run from the clone's root), else the
// executable's path.
func SelfCommand() string {
	exe, err := os.Executable()
	if err != nil {
		return "sepad"
	}
	if goRunBinary(exe) {
		if fi, err := os.Stat(filepath.Join("cmd", "sepad")); err == nil && fi.IsDir() {
			return "go run ./cmd/sepad"
		}
		return "go run github.com/sepad/sepad/cmd/sepad"
	}
	if p, err := exec.LookPath("sepad"); err == nil && sameFile(p, exe) {
		return "sepad"
	}
	return exe
}

// goRunBinary reports an executable `go run` built in its temporary
// directory ($TMPDIR/go-build*/b001/exe/sepad).
func goRunBinary(exe string) bool {
	dir := filepath.ToSlash(filepath.Dir(exe))
	return strings.HasSuffix(dir, "/exe") && strings.Contains(dir, "/go-build")
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
