//go:build windows

package service

import (
	"fmt"
	"io"
	"os"
	"runtime"
)

// Reload restarts the scheduled task: Windows has no SIGHUP, and
// the daemon reads its configuration when it starts. Stopping it this way
// loses nothing: what it had not committed it reads again from the spool.
func Reload(w io.Writer, home string, pid int) error {
	p, err := ThisUser("", home)
	if err != nil {
		return err
	}
	svc, err := For(runtime.GOOS, p)
	if err != nil {
		return err
	}
	if _, err := os.Stat(svc.Path); err != nil {
		return fmt.Errorf("the sepad daemon (pid %d) does not run as the scheduled task (%s: %v), and Windows has no reload signal: stop it (Ctrl-C) and start it again", pid, svc.Path, err)
	}
	if _, err := runAll(w, svc.Reload); err != nil {
		return fmt.Errorf("restart the scheduled task %s: %w", windowsTaskName, err)
	}
	fmt.Fprintf(w, "restarted the scheduled task %s: the daemon reads its configuration again\n", windowsTaskName)
	return nil
}
