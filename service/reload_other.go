//go:build !unix && !windows

package service

import (
	"fmt"
	"io"
)

// Reload: this system has neither SIGHUP nor a service sepad knows.
func Reload(w io.Writer, home string, pid int) error {
	return fmt.Errorf("this system has no reload signal: stop the sepad daemon (pid %d) and start it again", pid)
}
