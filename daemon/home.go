package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sepad/sepad/spool"
)

// errUnsafeHome: the state directory exists and others can write it, or
// it belongs to another user: whoever can write it could replace the
// database, the spool or the secret.
var errUnsafeHome = errors.New("unsafe state directory")

// prepareHome makes the daemon's state directory ready: created 0700 when
// missing; tightened to 0700 when it is sepad's (it holds sepa.db or a
// spool); left with its mode when it is someone else's directory (sepad's
// files in it are 0600 anyway). A directory others can write, or owned by
// another user, is refused with errUnsafeHome naming it.
func prepareHome(home string) error {
	fi, err := os.Stat(home)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(home, 0o700); err != nil {
			return fmt.Errorf("create home %s: %w", home, err)
		}
		return os.Chmod(home, 0o700) // MkdirAll's mode is cut by the umask
	}
	if err != nil {
		return fmt.Errorf("state directory %s: %w", home, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state directory %s: not a directory", home)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("state directory %s is %v: %w: other users can write it (and replace sepad's files); use a private directory, or `chmod go-w %s` if it is yours alone",
			home, fi.Mode().Perm(), errUnsafeHome, home)
	}
	if err := checkOwner(home, fi); err != nil {
		return err
	}
	if isSepadHome(home) && fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(home, 0o700); err != nil {
			return fmt.Errorf("secure home %s: %w", home, err)
		}
	}
	return nil
}

// isSepadHome reports whether dir already holds sepad's files.
func isSepadHome(dir string) bool {
	for _, f := range []string{"sepa.db", filepath.Base(spool.Path(dir))} {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}
