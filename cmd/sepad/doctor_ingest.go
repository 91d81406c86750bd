package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/spool"
)

// lowSpace is the free space under which doctor warns about the file
// system holding the state directory.
const lowSpace = 64 << 20

// The ingestion checks of `sepad doctor` (a full disk, runtime fallback
// files waiting to be read) live here and run after doctor.go's checks:
// files initialise in name order, so "doctor" is registered when this
// init runs.
func init() {
	c, ok := commands["doctor"]
	if !ok {
		return
	}
	next := c.run
	c.run = func(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		err := next(args, stdin, stdout, stderr)
		if errors.Is(err, errUsage) || wantsHelp(args) {
			return err
		}
		d := &doctor{w: stdout}
		home := flagValue(args, "home")
		if home == "" {
			home = spool.Home()
		}
		d.checkIngest(home)
		if d.failed == 0 {
			return err
		}
		n := d.failed
		var ee *exitError
		if errors.As(err, &ee) {
			var prev int
			fmt.Sscanf(ee.err.Error(), "%d", &prev)
			n += prev
		}
		return &exitError{code: exitFail, err: fmt.Errorf("%d check(s) failed", n)}
	}
	commands["doctor"] = c
}

func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			return true
		}
	}
	return false
}

// flagValue returns the value of -name/--name in args (either form, with
// "=" or as the next argument).
func flagValue(args []string, name string) string {
	for i, a := range args {
		for _, p := range []string{"-" + name, "--" + name} {
			if a == p && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v
			}
		}
	}
	return ""
}

// checkIngest reports a daemon stalled on a full disk, lines waiting in
// the runtime fallback files, and little free space where the state
// directory is.
func (d *doctor) checkIngest(home string) {
	up := false
	if st, err := client.Status(home); err == nil {
		up = true
		if in := st.Daemon.Ingest; in != nil {
			if in.Stalled {
				d.fail(fmt.Sprintf("the daemon cannot commit since %s: the file system holding %s is full (%s); it holds %d lines and retries (%d attempts)",
					fmtTime(in.Since), filepath.Join(home, "sepa.db"), in.LastError, in.PendingLines, in.Attempts),
					"free space on that file system (df "+home+"); the daemon catches up by itself, nothing it read is lost")
			} else {
				d.ok("the daemon's commits succeed (%d refused for lack of space since it started)", in.FailedCommits)
			}
		}
	}
	for _, fb := range spool.RuntimeFallbackPaths(home) {
		more, _ := filepath.Glob(fb + ".*")
		for _, p := range append([]string{fb}, more...) {
			fi, err := os.Stat(p)
			if err != nil || fi.Size() == 0 {
				continue
			}
			if up {
				d.ok("%s holds %d bytes the hook wrote while the disk was full; the daemon reads it and then deletes it", p, fi.Size())
			} else {
				d.warn(fmt.Sprintf("%s holds %d bytes the hook wrote while the disk was full (it lives in memory: a reboot loses it)", p, fi.Size()),
					"start the daemon (`sepad run`): it reads the file, then deletes it")
			}
		}
	}
	if free, ok := freeSpace(home); ok && free < lowSpace {
		d.warn(fmt.Sprintf("only %s free on the file system holding %s", fmtBytes(free), home),
			"free space: when it is full the daemon's commits wait, and the hook writes to a bounded file in $XDG_RUNTIME_DIR or /dev/shm")
	}
}
