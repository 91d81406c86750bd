package client

import (
	"time"

	"github.com/sepad/sepad/status"
)

// AwaitReload waits up to wait for the daemon of home to report a reload
// after the one numbered prev, and returns what it did: the file read,
// the keys applied and those waiting for a restart, or why it kept the
// previous configuration. nil: the daemon said nothing in time (an older
// sepad).
func AwaitReload(home string, prev int, wait time.Duration) *status.Reload {
	deadline := time.Now().Add(wait)
	for {
		st, err := Status(home)
		if err == nil && st.Daemon.Reload != nil && st.Daemon.Reload.Seq > prev {
			return st.Daemon.Reload
		}
		if time.Now().After(deadline) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}
