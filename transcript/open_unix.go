//go:build !windows

package transcript

import "syscall"

// openNonblock makes the open of a FIFO (or a device) return at once
// instead of waiting for a writer; a regular file reads as usual with it.
const openNonblock = syscall.O_NONBLOCK
