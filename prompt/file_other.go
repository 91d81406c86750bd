//go:build !unix

package prompt

import "os"

// oRead: no FIFOs to wait on here.
const oRead = os.O_RDONLY
