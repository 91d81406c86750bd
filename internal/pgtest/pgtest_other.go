//go:build !unix

package pgtest

import "os/exec"

func ownByServerUser(dirs ...string) error { return nil }

func asServerUser(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

func interrupt(cmd *exec.Cmd) { cmd.Process.Kill() }

func waitGroupGone(pid int) {}
