//go:build unix

package service

import (
	"fmt"
	"io"
	"syscall"
)

// Reload sends the daemon SIGHUP, as systemd's ExecReload and
// `launchctl kill SIGHUP` do.
func Reload(w io.Writer, home string, pid int) error {
	if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
		return fmt.Errorf("send SIGHUP to the sepad daemon (pid %d): %w", pid, err)
	}
	fmt.Fprintf(w, "sent SIGHUP to the sepad daemon (pid %d)\n", pid)
	return nil
}
