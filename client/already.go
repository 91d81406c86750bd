package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/status"
	"github.com/sepad/sepad/store"
)

// ErrAlreadyRunning: `sepad run` found another daemon on the same state
// directory.
var ErrAlreadyRunning = errors.New("sepad is already running")

// AlreadyRunning asks the socket of home whether a daemon serves it, and
// if one does returns an error naming its pid and start time, at once
// (without waiting for the database lock).
func AlreadyRunning(home string) error {
	if home == "" {
		home = spool.Home()
	}
	st, err := Status(home)
	if errors.Is(err, ErrNoAnswer) {
		return nil // nobody answers: the lock decides
	}
	if err != nil {
		return fmt.Errorf("%w: a daemon answers on %s; stop it first, or start this one with another --home", ErrAlreadyRunning, api.SocketPath(home))
	}
	return fmt.Errorf("%w (pid %d, since %s) on %s; stop it first, or start this one with another --home",
		ErrAlreadyRunning, st.Daemon.PID, render.Time(st.Daemon.Started), home)
}

// ErrNotDaemon: something answers on the socket, but not a daemon's status.
var ErrNotDaemon = errors.New("the socket answers, but not with a running daemon's status")

// Status asks the socket of home for the daemon's status, at once:
// ErrNoAnswer when nobody listens, ErrNotDaemon for another answer.
func Status(home string) (*status.Status, error) {
	sock := api.SocketPath(home)
	c := api.SocketClient(sock, 2*time.Second)
	resp, err := c.Get("http://sepad/v1/status")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoAnswer, err)
	}
	defer resp.Body.Close()
	var st status.Status
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&st) != nil || !st.Daemon.Running {
		return nil, fmt.Errorf("%s: %w", sock, ErrNotDaemon)
	}
	return &st, nil
}

// LockedByDaemon words a database lock held when no daemon answered the
// probe: another process holds it (a daemon starting, or one serving no
// socket).
func LockedByDaemon(home string, err error) error {
	if !errors.Is(err, store.ErrLocked) {
		return err
	}
	if home == "" {
		home = spool.Home()
	}
	return fmt.Errorf("%w: another process holds %s (a daemon starting or stopping, or one that serves no socket); stop it first, or start this one with another --home",
		ErrAlreadyRunning, filepath.Join(home, "sepa.db"))
}
