//go:build !unix && !windows

package main

import (
	"fmt"
	"io"
)

// reloadDaemon: this system has neither SIGHUP nor a service sepad knows.
func reloadDaemon(w io.Writer, home string, pid int) error {
	return fmt.Errorf("this system has no reload signal: stop the sepad daemon (pid %d) and start it again", pid)
}
