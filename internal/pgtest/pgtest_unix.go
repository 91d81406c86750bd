//go:build unix

package pgtest

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
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

// killGroup kills the server as a crash would: every process at once.
// PostgreSQL's children call setsid, so they are not in the postmaster's
// group: the postmaster is stopped (no more forks), its children found
// in /proc and killed with it.
func killGroup(cmd *exec.Cmd) {
	pid := cmd.Process.Pid
	syscall.Kill(pid, syscall.SIGSTOP)
	kids := children(pid)
	for _, k := range kids {
		syscall.Kill(k, syscall.SIGKILL)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGKILL)
	for _, k := range kids {
		waitExited(k)
	}
}

// children lists the processes whose parent is pid (Linux's /proc; none
// elsewhere).
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _ := procStat(n); ppid == pid {
			out = append(out, n)
		}
	}
	return out
}

// procStat returns a process's parent and state from /proc/PID/stat.
func procStat(pid int) (ppid int, state byte) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1, 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return -1, 0
	}
	f := strings.Fields(s[i+2:])
	if len(f) < 2 {
		return -1, 0
	}
	ppid, _ = strconv.Atoi(f[1])
	return ppid, f[0][0]
}

// waitExited waits until pid is gone or a zombie (it holds no shared
// memory then).
func waitExited(pid int) {
	for i := 0; i < 600; i++ {
		if _, st := procStat(pid); st == 0 || st == 'Z' || st == 'X' {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

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
