//go:build unix

package prompt

import (
	"os"
	"syscall"
)

// oRead opens a file for reading without waiting on a FIFO put in a
// prompt file's place (openRegular).
const oRead = os.O_RDONLY | syscall.O_NONBLOCK
