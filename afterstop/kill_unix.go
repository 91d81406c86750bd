//go:build unix

package afterstop

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in a process group of its own and kills the
// whole group at the bound: a test runner's children (go test's test
// binaries, npm's node) die with it.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
