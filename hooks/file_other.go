//go:build !unix

package hooks

import "os"

// oRead: no FIFOs to wait on here.
const oRead = os.O_RDONLY
