//go:build !unix

package afterstop

import "os/exec"

// killGroup: elsewhere the command itself is killed at the bound
// (exec.CommandContext's default); WaitDelay bounds what its children
// hold open.
func killGroup(cmd *exec.Cmd) {}
