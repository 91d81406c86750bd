package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/service"
	"github.com/sepad/sepad/spool"
)

func init() {
	register("reload", "make the running daemon read its configuration again (SIGHUP; on Windows, restart its task)", runReload)
}

// runReload is `sepad reload`: the service managers' reload for every
// system. systemd's unit has ExecReload and launchd has none; both end
// in SIGHUP to the daemon, which is what this sends (package service). On
// Windows, which has no such signal, it restarts the scheduled task
// (service.Reload): the daemon reads its configuration when it starts.
func runReload(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("reload", stderr)
	home := fs.String("home", "", "the daemon's state directory `DIR` (default $SEPA_HOME, $XDG_STATE_HOME/sepa, ~/.local/state/sepa)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments, got %q", pos[0])
	}
	h := *home
	if h == "" {
		h = spool.Home()
	}
	st, err := client.Status(h)
	if errors.Is(err, client.ErrNoAnswer) {
		return fmt.Errorf("no sepad daemon answers on %s: nothing to reload (a daemon reads its configuration when it starts: sepad run, or sepad install --service)", api.SocketPath(h))
	}
	if err != nil {
		return err
	}
	prev := 0
	if st.Daemon.Reload != nil {
		prev = st.Daemon.Reload.Seq
	}
	if err := service.Reload(stdout, h, st.Daemon.PID); err != nil {
		return err
	}
	if runtime.GOOS == "windows" {
		return nil // the task restarted: it read everything
	}
	r := client.AwaitReload(h, prev, 10*time.Second)
	if r == nil {
		fmt.Fprintln(stdout, "the daemon has not said what it reloaded (an older sepad?): its log says \"config reloaded\", or why it kept the previous one")
		return nil
	}
	if r.Error != "" {
		return fmt.Errorf("the daemon kept its previous configuration: %s", r.Error)
	}
	render.Reload(stdout, r)
	return nil
}
