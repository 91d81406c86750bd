//go:build unix

package api

import "syscall"

// oNoFollow refuses a symbolic link at the secret's path.
const oNoFollow = syscall.O_NOFOLLOW
