//go:build !unix

package promptfile

// No such flags here: os.Root keeps links inside the root and
// openRegular compares the open file with the directory entry.
const (
	oNoFollow = 0
	oNonblock = 0
)

func isLinkErr(error) bool { return false }
