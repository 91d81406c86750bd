package doctor

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/spool"
)

// lowSpace is the free space under which doctor warns about the file
// system holding the state directory.
const lowSpace = 64 << 20

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
					render.Time(in.Since), filepath.Join(home, "sepa.db"), in.LastError, in.PendingLines, in.Attempts),
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
		d.warn(fmt.Sprintf("only %s free on the file system holding %s", render.Bytes(free), home),
			"free space: when it is full the daemon's commits wait, and the hook writes to a bounded file in $XDG_RUNTIME_DIR or /dev/shm")
	}
}
