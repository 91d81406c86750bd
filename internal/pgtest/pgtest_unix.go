//go:build unix

package pgtest

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"time"
)

// serverUser is who runs the server: nobody when the test runs as root
// (PostgreSQL refuses root), the test's own user otherwise.
func serverUser() (uid, gid int, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return -1, -1, true
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid, true
}

func ownByServerUser(dirs ...string) error {
	uid, gid, root := serverUser()
	if !root {
		return nil
	}
	if uid < 0 {
		return errNoUser
	}
	for _, d := range dirs {
		if err := os.Chown(d, uid, gid); err != nil {
			return err
		}
	}
	return nil
}

func asServerUser(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if uid, gid, root := serverUser(); root && uid >= 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		cmd.Env = append(cmd.Env, "HOME="+cmd.Dir)
	}
}

// killGroup sends SIGKILL to the server's process group: the postmaster
// and its backends die together.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// interrupt asks for a fast shutdown.
func interrupt(cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGINT) }

// waitGroupGone waits until no process of the group is left, so a restart
// finds no backend still holding the shared memory.
func waitGroupGone(pgid int) {
	for i := 0; i < 600; i++ {
		if err := syscall.Kill(-pgid, 0); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
