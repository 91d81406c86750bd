//go:build unix

package promptfile

import (
	"errors"
	"syscall"
)

// Open flags of prompt files: never follow a link at the last component
// (os.Root then checks a link stays in its directory, and openRegular
// refuses it), and never block on a FIFO swapped in for a prompt file.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonblock = syscall.O_NONBLOCK
)

// isLinkErr reports the error of opening a symbolic link with O_NOFOLLOW.
func isLinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
