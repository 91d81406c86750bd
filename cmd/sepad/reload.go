package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/hooks"
)

func init() {
	register("reload", "make the running daemon read its configuration again (SIGHUP; on Windows, restart its task)", runReload)
}

// runReload is `sepad reload`: the service managers' reload for every
// system. systemd's unit has ExecReload and launchd has none; both end
// in SIGHUP to the daemon, which is what this sends (reload_unix.go). On
// Windows, which has no such signal, it restarts the scheduled task
// (reload_windows.go): the daemon reads its configuration when it starts.
func runReload(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("reload", stderr)
	home := fs.String("home", "", "the daemon's state directory (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("reload takes no arguments, got %q", pos[0])
	}
	h := *home
	if h == "" {
		h = hooks.Home()
	}
	st, err := daemonStatus(h)
	if errors.Is(err, errNoAnswer) {
		return fmt.Errorf("no sepad daemon answers on %s: nothing to reload (a daemon reads its configuration when it starts: sepad run, or sepad install --service)", api.SocketPath(h))
	}
	if err != nil {
		return err
	}
	return reloadDaemon(stdout, h, st.Daemon.PID)
}
