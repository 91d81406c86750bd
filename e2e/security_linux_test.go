package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

var otherUsers atomic.Int32

// otherLocalUser creates a second local user for the test (removed at
// its end) and returns its ids; without root or useradd the test skips.
func otherLocalUser(t *testing.T) (uid, gid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a second local user (useradd) and run a process as it")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Skip("needs useradd")
	}
	name := fmt.Sprintf("sepadt%d_%d", os.Getpid()%100000, otherUsers.Add(1))
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Skipf("useradd %s: %v %s", name, err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// TestOtherLocalUser: a second local user reaches the TCP address but
// gets 401 without the secret, cannot read the secret file, and cannot
// connect to the socket (0600 in a 0700 directory). It needs root (to
// create the user, and to run curl as that user) and Linux.
func TestOtherLocalUser(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("needs curl, run as the other user")
	}
	uid, gid := otherLocalUser(t)
	home := shortTempDir(t)
	startDaemon(t, home, "--http", "127.0.0.1:0")
	addr := httpAddr(t, home)
	as := func(args ...string) (string, int) {
		cmd := exec.Command(curl, append([]string{"-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5"}, args...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		cmd.Dir = "/"
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return string(out), code
	}
	for _, p := range []string{"/v1/skills", "/metrics", "/healthz"} {
		if status, _ := as("http://" + addr + p); status != "401" {
			t.Errorf("the other user GET %s over TCP: %s, want 401", p, status)
		}
	}
	if status, _ := as("-X", "POST", "--data", `{"session_id":"x","cwd":"/","hook_event_name":"Stop"}`, "http://"+addr+"/v1/hook"); status != "401" {
		t.Errorf("the other user POST /v1/hook: %s, want 401", status)
	}
	// The socket: curl cannot even connect (exit 7), so no HTTP status.
	if status, code := as("--unix-socket", filepath.Join(home, "sepad.sock"), "http://sepad/v1/skills"); status != "000" || code != 7 {
		t.Errorf("the other user on the socket: status %s, curl exit %d, want no connection (7)", status, code)
	}
	// The secret file is out of reach.
	cat := exec.Command("cat", filepath.Join(home, "http.secret"))
	cat.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	if out, err := cat.CombinedOutput(); err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Errorf("the other user reading the secret: %v %s", err, out)
	}
	// The daemon's user, with the secret, is let in.
	resp, err := tcpClient(t, home).Get("http://" + addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("with the secret: %v %v", resp, err)
	}
	resp.Body.Close()
}
